"""Distribution drift against a reference batch, on the shared dirty-clean pairs, both engines.

Hospital: the dirty table's typos add categories a clean batch never has
(chi-squared and Jensen-Shannon find drift), while the clean table's odd rows
against its even rows do not drift. Beers: 16-ounce cans against 12-ounce
ones (Kolmogorov-Smirnov on the alcohol by volume). Every statistic is
checked against scipy on the raw values.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.spatial.distance import jensenshannon

from autovalidate.checks import Check, CheckLevel, VerificationSuite
from autovalidate.errors import ParameterError
from autovalidate.metrics.distribution import distribution_drift
from tests.conftest import DIRTY_CLEAN


def _frames():
    clean = pd.read_csv(DIRTY_CLEAN / "hospital" / "clean.csv", dtype=str, keep_default_na=False)
    dirty = pd.read_csv(DIRTY_CLEAN / "hospital" / "dirty.csv", dtype=str, keep_default_na=False)
    dirty.columns = clean.columns
    beers = pd.read_csv(DIRTY_CLEAN / "beers" / "clean.csv")
    return {
        "clean": clean[["MeasureCode", "Condition"]],
        "dirty": dirty[["MeasureCode", "Condition"]],
        "even": clean[["Condition"]].iloc[::2],
        "odd": clean[["Condition"]].iloc[1::2],
        "cans12": beers.loc[beers["ounces"] == 12, ["abv"]].dropna(),
        "cans16": beers.loc[beers["ounces"] == 16, ["abv"]].dropna(),
    }


def _chi2(a, b) -> float:
    ca, cb = Counter(a), Counter(b)
    keys = sorted(set(ca) | set(cb))
    return stats.chi2_contingency([[ca[k] for k in keys], [cb[k] for k in keys]], correction=False)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_drift_is_found_where_the_data_changed_and_only_there(engine, request):
    frames = _frames()
    if engine == "spark":
        spark = request.getfixturevalue("spark")
        data = {n: spark.createDataFrame(f) for n, f in frames.items()}
    else:
        data = dict(frames)
    check = (
        Check(CheckLevel.WARNING, "drift")
        .has_no_drift("MeasureCode", data["clean"], test="js", reference_name="clean")
        .has_no_drift("Condition", data["clean"], test="chi2", reference_name="clean")
    )
    dirty = VerificationSuite().on_data(data["dirty"]).add_check(check).run()
    js, chi2 = dirty.check_results[0].constraint_results
    even_odd = (
        VerificationSuite()
        .on_data(data["odd"])
        .add_check(Check(CheckLevel.WARNING, "halves").has_no_drift("Condition", data["even"]))
        .run()
    )
    (halves,) = even_odd.check_results[0].constraint_results
    cans = (
        VerificationSuite()
        .on_data(data["cans16"])
        .add_check(Check(CheckLevel.WARNING, "abv").has_no_drift("abv", data["cans12"], test="ks"))
        .run()
    )
    (ks,) = cans.check_results[0].constraint_results

    clean, dirty_rows = frames["clean"], frames["dirty"]
    keys = sorted(set(clean["MeasureCode"]) | set(dirty_rows["MeasureCode"]))
    p = np.array([Counter(clean["MeasureCode"])[k] for k in keys], float)
    q = np.array([Counter(dirty_rows["MeasureCode"])[k] for k in keys], float)
    assert js.status.value == "Failure"
    assert js.value == pytest.approx(jensenshannon(p / p.sum(), q / q.sum(), base=2), rel=1e-9)
    assert js.value > 0.1 and "js finds drift of MeasureCode ~ clean(MeasureCode)" in js.message

    expected = _chi2(clean["Condition"], dirty_rows["Condition"])
    assert chi2.value == pytest.approx(expected.statistic, rel=1e-9)
    assert chi2.details["p_value"] == pytest.approx(expected.pvalue, rel=1e-6, abs=1e-300)
    assert chi2.status.value == ("Failure" if expected.pvalue < 0.05 else "Success")

    expected = _chi2(frames["odd"]["Condition"], frames["even"]["Condition"])
    assert halves.status.value == "Success" and expected.pvalue > 0.05
    assert halves.value == pytest.approx(expected.statistic, rel=1e-9)

    a, b = frames["cans12"]["abv"].to_numpy(), frames["cans16"]["abv"].to_numpy()
    expected = stats.ks_2samp(a, b, method="asymp")
    assert ks.value == pytest.approx(expected.statistic, rel=1e-12)
    assert ks.details["p_value"] == pytest.approx(expected.pvalue, rel=1e-6)
    assert ks.status.value == "Failure" and expected.pvalue < 0.05  # 16-ounce cans are stronger
    assert ks.details["n_reference"] == len(a) and ks.details["n_batch"] == len(b)


def test_psi_and_its_bins():
    reference = Counter({float(v): 10 for v in range(100)})  # uniform on 0..99
    same = distribution_drift(reference, reference, test="psi", numeric=True)
    shifted = Counter({float(v + 30): 10 for v in range(100)})
    moved = distribution_drift(reference, shifted, test="psi", numeric=True)
    assert same.statistic == 0.0 and not same.drift
    # deciles of the reference: the shifted batch leaves the first three bins (1e-4 each)
    # and piles 40 % into the last one
    p = np.full(10, 0.1)
    q = np.array([1e-4] * 3 + [0.1] * 6 + [0.4])
    assert moved.statistic == pytest.approx(np.sum((q - p) * np.log(q / p)), rel=1e-9)
    assert moved.drift and moved.threshold == 0.2
    with pytest.raises(ParameterError, match="numeric"):
        distribution_drift(Counter("ab"), Counter("ab"), test="ks", numeric=False)
