"""What the Spark validation tests share (not a test module)."""

from autovalidate import PatternConstraint

#: A tolerant pattern constraint of codes like ``12-AB``, trained on 100 values with 1 outlier.
CODE_CONSTRAINT = PatternConstraint(
    regex=r"\A(?:[0-9]{2}\-\p{Lu}{2})\z",
    pattern="<digit>{2}-<upper>{2}",
    segments=(),
    fpr=0.0,
    method="fmdv-vh",
    test="fisher",
    alpha=0.01,
    train_n=100,
    train_nonconforming=1,
    column="code",
)
