"""TFDV: TensorFlow Data Validation's string-domain inference, the real package where it installs.

TFDV infers a schema from the statistics of the training data
(``tfdv.infer_schema(stats, max_string_domain_size=100)``).  A string feature
gets a ``StringDomain`` of all its values when it has at most
``max_string_domain_size`` distinct values and no invalid UTF-8
(``IsStringDomainCandidate`` in ``anomalies/string_domain_util.cc``);
otherwise it gets no domain, which here is an abstention.  Validation raises
``ENUM_TYPE_UNEXPECTED_STRING_VALUES`` when the off-domain fraction exceeds
``1 - min_domain_mass``, and with the default ``min_domain_mass = 1`` on any
value outside the domain (``UpdateStringDomain``): a strict dictionary rule,
counted by the protocol like every other dictionary.  A feature whose strings
are ``true``/``false`` gets a ``BoolDomain`` instead, which admits just those
two strings; the reimplementation's domain of the observed values is the same
rule wherever both strings occur in training.

Two implementations, and the results say which one ran:

* the real package: ``tensorflow-data-validation`` is installed into an
  isolated venv (``benchmarks/work/tfdv-venv``) and run as a subprocess
  (:mod:`benchmarks.avbench.methods.tfdv_worker`) that computes statistics
  and infers the schema for all training columns in one call;
* where it does not install or import: :func:`infer_string_domain`, a
  reimplementation of the rule above.

References
----------
tensorflow/data-validation: ``tensorflow_data_validation/api/validation_api.py``
(``infer_schema``), ``anomalies/string_domain_util.cc``, ``anomalies/schema.cc``;
Song & He, SIGMOD 2021, §5.2 ("TFDV").
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.avbench.protocol import Case, Rule

__all__ = ["MAX_STRING_DOMAIN_SIZE", "TfdvMethod", "ensure_tfdv", "infer_string_domain"]

MAX_STRING_DOMAIN_SIZE = 100
PACKAGE = "tensorflow-data-validation"
#: Seconds allowed for installing the package into the venv.
INSTALL_TIMEOUT = 1200
_WORKER = Path(__file__).with_name("tfdv_worker.py")


@dataclass(frozen=True)
class TfdvSetup:
    """Where TFDV runs: ``python`` of the venv, or None with the reason (reimplementation)."""

    python: Path | None
    implementation: str


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _imports(python: Path) -> tuple[bool, str]:
    probe = subprocess.run(
        [str(python), "-c", "import tensorflow_data_validation as t; print(t.__version__)"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if probe.returncode == 0:
        return True, probe.stdout.strip()
    lines = [ln for ln in probe.stderr.strip().splitlines() if ln.strip()]
    return False, lines[-1] if lines else f"exit code {probe.returncode}"


def ensure_tfdv(work: Path, *, install: bool = True, timeout: int = INSTALL_TIMEOUT) -> TfdvSetup:
    """Find or install the real TFDV in ``work/tfdv-venv``; else say why not.

    The outcome of a failed install is remembered in ``work/tfdv-install.json``
    so later runs do not spend the install time again (delete it to retry).

    Returns
    -------
    TfdvSetup
        ``implementation`` is ``"tensorflow-data-validation X.Y.Z"`` or
        ``"reimplementation (tensorflow-data-validation did not install: <reason>)"``.
    """
    venv = work / "tfdv-venv"
    record = work / "tfdv-install.json"
    python = _venv_python(venv)
    if python.exists():
        ok, detail = _imports(python)
        if ok:
            return TfdvSetup(python, f"{PACKAGE} {detail}")
    if record.exists():
        reason = json.loads(record.read_text())["reason"]
    elif not install:
        reason = "not installed and installing was not allowed (--no-tfdv-install)"
    else:
        reason = _install(venv, work / "tfdv-install.log", timeout)
        if reason is None:
            ok, detail = _imports(python)
            if ok:
                return TfdvSetup(python, f"{PACKAGE} {detail}")
            reason = f"installed but does not import: {detail}"
        record.write_text(json.dumps({"reason": reason}))
    return TfdvSetup(None, f"reimplementation ({PACKAGE} did not install: {reason})")


#: The install recipe that works on Python 3.11 (checked on this project's machine): pip's
#: default resolver backtracks over apache-beam's Google Cloud extras for more than 20
#: minutes, so the legacy resolver picks versions, then the three packages it gets wrong
#: for TFDV 1.16 (numpy 2, protobuf 5, no dill) are pinned without touching the rest.
INSTALL_STEPS = (
    ("--use-deprecated=legacy-resolver", PACKAGE),
    ("--no-deps", "numpy==1.26.4", "protobuf==4.25.5", "dill==0.3.1.1"),
)


def _install(venv: Path, log: Path, timeout: int) -> str | None:
    """Create the venv and install TFDV (:data:`INSTALL_STEPS`); None on success, else why not."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    with log.open("w") as out:
        for step in INSTALL_STEPS:
            try:
                done = subprocess.run(
                    [str(_venv_python(venv)), "-m", "pip", "install", *step],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired:
                return f"pip install {' '.join(step)} did not finish within {timeout} s"
            if done.returncode != 0:
                out.flush()
                lines = [ln.strip() for ln in log.read_text().splitlines() if ln.strip()]
                errors = [ln for ln in lines if ln.startswith("ERROR")]
                return (errors or lines or [f"pip exit code {done.returncode}"])[0][:300]
    return None


def infer_string_domain(train: Sequence[str]) -> frozenset[str] | None:
    """TFDV's string domain of a feature, reimplemented (see the module docstring)."""
    values = frozenset(train)
    if not values or len(values) > MAX_STRING_DOMAIN_SIZE:
        return None
    return values


def _rule(domain: frozenset[str] | None) -> Rule | None:
    if domain is None:
        return None
    shown = ", ".join(repr(v) for v in sorted(domain)[:8])
    more = f", ... ({len(domain)} values)" if len(domain) > 8 else ""
    return Rule("dictionary", f"string_domain {{{shown}{more}}}", values=domain)


@dataclass
class TfdvMethod:
    """TFDV's inferred string domain as a strict dictionary rule."""

    setup: TfdvSetup
    name: str = "tfdv"
    pattern_based: bool = False
    info: dict = field(default_factory=dict)

    def fit_all(self, cases: Sequence[Case]) -> list[Rule | None]:
        """Rules for every case of B; the real package runs once for all of them."""
        self.info = {"implementation": self.setup.implementation}
        if self.setup.python is None:
            return [_rule(infer_string_domain(c.train)) for c in cases]
        with tempfile.TemporaryDirectory(prefix="avbench-tfdv-") as tmp:
            request = Path(tmp) / "train.json"
            reply = Path(tmp) / "domains.json"
            request.write_text(json.dumps({f"c{c.idx}": c.train for c in cases}))
            subprocess.run(
                [
                    str(self.setup.python),
                    str(_WORKER),
                    str(request),
                    str(reply),
                    str(MAX_STRING_DOMAIN_SIZE),
                ],
                check=True,
                capture_output=True,
            )
            domains = json.loads(reply.read_text())
        return [
            _rule(frozenset(d) if (d := domains.get(f"c{c.idx}")) is not None else None)
            for c in cases
        ]
