"""One measure vocabulary (issue 23): every area registers into one registry, and the old
vocabularies (classification MEASURES / RATES, online METRICS / parse_metric, the protocols'
Metric, the central trec_eval table) are views of it. Driven by the registry: a measure added to
any area is checked here without editing this file."""

import json

import pytest

from cranfield.errors import MeasureError
from cranfield.measures import base
from cranfield.measures.base import AREAS, Family, Measure, families, get_family, parse_measure, register

ALL = families(None)


def _examples(family: Family) -> list[Measure]:
    """Measures of the family: its defaults, and with a cut-off where it takes one."""
    cut = 10 if family.cutoff_kind == "int" else 0.5
    out = [family.make(cutoff=cut if family.cutoff == "required" else None)]
    if family.cutoff == "optional":
        out.append(family.make(cutoff=cut))
    return out


def test_every_area_registers():
    assert AREAS == ("retrieval", "classification", "clustering", "online")
    assert {f.area for f in ALL.values()} == set(AREAS)
    assert {"AP", "nDCG", "roc_auc", "f1", "mse", "ctr", "abandonment"} <= set(ALL)


@pytest.mark.parametrize("name", sorted(ALL))
def test_each_measure_is_documented_and_parses_back(name):
    family = ALL[name]
    assert family.definition.strip() and family.reference.strip(), name
    assert family.data in base.DATA[family.area]
    assert get_family(name, family.area) is family
    for measure in _examples(family):
        text = str(measure)
        assert parse_measure(text, area=family.area) == measure
        assert Measure(name, dict(measure.params), measure.cutoff, area=family.area) == measure
        assert measure.family is family and measure.area == family.area


def test_canonical_names_are_unique_across_areas(monkeypatch):
    names = [f.name for f in ALL.values()]
    assert len(names) == len(set(names))
    for area in AREAS:  # every alias of an area names one of that area's measures
        assert all(ALL[canonical].area == area for canonical in base._ALIASES[area].values())
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    with pytest.raises(AssertionError, match="registered twice"):
        register(Family("AP", lambda *a: None, "x", "y", area="online", data="click logs"))


def _cli(capsys, *argv) -> str:
    from cranfield.cli import main

    assert main(["measures", *argv]) in (0, None)
    return capsys.readouterr().out


def test_cranfield_measures_lists_every_registered_measure(capsys):
    rows = json.loads(_cli(capsys, "-f", "json"))
    assert {(r["area"], r["measure"]) for r in rows} == {(f.area, f.name) for f in ALL.values()}
    assert all(r["definition"] == ALL[r["measure"]].definition and r["reference"] for r in rows)
    for area in AREAS:
        lines = _cli(capsys, "--area", area, "-f", "csv").strip().splitlines()
        assert len(lines) == 1 + sum(f.area == area for f in ALL.values())
    markdown = _cli(capsys, "-a", "online", "-f", "markdown")
    assert markdown.startswith("| area | measure |") and "| online | ctr[@k] |" in markdown


@pytest.mark.parametrize("width", [80, 132])
def test_terminal_listing_fits_and_never_truncates(width, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(width))
    out = _cli(capsys)
    assert max(len(line) for line in out.splitlines()) <= width
    # wrapped, never cut: the definition column holds every definition and reference in full
    column = "".join("".join(line.split("│")[2].split()) for line in out.splitlines() if line.count("│") == 3)
    for family in ALL.values():
        assert "".join(f"{family.definition} [{family.reference}]".split()) in column, family.name


def test_one_error_text_for_an_unknown_measure():
    with pytest.raises(MeasureError, match=r"unknown measure 'nDCGG'; did you mean nDCG"):
        parse_measure("nDCGG@10")
    with pytest.raises(MeasureError, match=r"unknown classification measure 'f1_scor'; did you mean f1_score.*--area classification"):
        parse_measure("f1_scor", area="classification")
    with pytest.raises(MeasureError, match=r"unknown online metric 'ctrr'; did you mean ctr.*--area online"):
        parse_measure("ctrr", area="online")
    with pytest.raises(MeasureError, match=r"'roc_auc' is a classification measure"):
        parse_measure("roc_auc")


def test_aliases_belong_to_an_area():
    assert str(parse_measure("rr")) == "RR" and str(parse_measure("rr", area="online")) == "rr"
    assert parse_measure("ap").name == "AP"
    assert parse_measure("ap", area="classification").name == "average_precision"
    assert parse_measure("Youden-J", area="classification").name == "informedness"
    assert parse_measure("lr+", area="classification").name == "lr_plus"
    assert str(parse_measure("fbeta(beta=2)", area="classification")) == "fbeta(beta=2)"
    assert str(parse_measure("ctr@5", area="online")) == "ctr@5"
    with pytest.raises(MeasureError, match="is a classification measure; expected a retrieval measure"):
        base.parse_measures([parse_measure("f1", area="classification")])


# ----------------------------------------------------------------------- the old vocabularies


def _temporary(monkeypatch, family: Family) -> None:
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(base, "_ALIASES", {area: dict(a) for area, a in base._ALIASES.items()})
    register(family)


def test_classification_measures_is_a_view(monkeypatch):
    from cranfield.classification import measures, rates

    cls = families("classification")
    assert set(measures.measure_names()) == set(cls)
    assert set(measures.MEASURES) == {n for f in cls.values() for n in (f.name, *f.aliases)}
    for name, info in measures.MEASURES.items():
        family = get_family(name, "classification")
        assert info.name == family.name and info.function is family.kernel and info.needs == family.data
        assert info.greater_is_better == family.greater_is_better
    for rate in rates.RATES:  # every rate is a registry entry that carries its declaration
        assert get_family(rate.name, "classification").spec is rate
    monkeypatch.setattr(measures, "_INFO", dict(measures._INFO))
    _temporary(monkeypatch, Family("fake_rate", len, "A test measure.", "nobody", area="classification",
                                   data="labels", aliases=("fake",)))
    assert "fake" in measures.MEASURES and measures.get_measure("FAKE").name == "fake_rate"


def test_online_metrics_are_a_view(monkeypatch):
    from cranfield.online import metrics

    online = families("online")
    assert metrics.METRICS == tuple(n for f in online.values() for n in (f.name, *((f"{f.name}@k",) if f.cutoff != "none" else ())))
    assert metrics.parse_metric("ctr@5") == ("ctr@k", 5) and metrics.parse_metric("skips") == ("skips", None)
    _temporary(monkeypatch, Family("dwell_time", len, "A test metric.", "nobody", area="online", data="click logs"))
    assert metrics.parse_metric("dwell_time") == ("dwell_time", None)


def test_protocol_metrics_are_registry_measures():
    from cranfield.protocols._scoring import resolve_metrics

    fbeta, auc, f1 = resolve_metrics([("fbeta", {"beta": 2}), "AUC", parse_measure("f1", area="classification")])
    assert fbeta.name == "fbeta(beta=2)" and fbeta.measure == parse_measure("fbeta(beta=2)", area="classification")
    assert auc.name == "roc_auc" and auc.info.family is get_family("roc_auc", "classification") and f1.name == "f1"
    with pytest.raises(MeasureError, match="unknown classification measure 'f_1'"):
        resolve_metrics(["f_1"])


def test_trec_eval_names_live_on_their_families():
    from cranfield.measures import trec_names

    declared = {t.name: f for f in families("retrieval").values() for t in f.trec}
    printed = [t.name for t in trec_names.TREC_MEASURES if t.kind != "special"]
    assert sorted(printed) == sorted(declared)
    for t in trec_names.TREC_MEASURES:
        if t.kind == "special":
            continue
        value = t.defaults[0] if t.defaults and t.kind != "params" else (t.defaults or None)
        built = t.build(int(value) if t.kind == "cut_long" else value, "9")
        assert built.family is declared[t.name], t.name
    assert trec_names.from_trec_name("map") == [Measure("AP")]
