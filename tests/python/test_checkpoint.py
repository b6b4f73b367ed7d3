"""Checkpoints from Python: lievi.run(..., stop_at=k) and lievi.resume(out) give the series and summary of the
uninterrupted run bit for bit (the command line's own tests cover every method); an extension by
resume(set={"integrator.t_end": T}) equals the longer run; what cannot be resumed raises InputError."""
import json
import os

import numpy as np
import pytest

import lievi

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def same_series(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[c].view(np.int64), b[c].view(np.int64)) for c in a)


def without_timing(summary):
    return {k: v for k, v in summary.items() if k != "timing"}


@pytest.mark.parametrize("path,method", [("rigid_body/scenario_a.toml", "dop853"),
                                         ("rigid_body/scenario_a.toml", "ddb-symmetric"),
                                         ("mechanics/kepler.toml", "lobatto-iiia-iiib")])
def test_stop_and_resume_from_python_equals_the_whole_run(tmp_path, path, method):
    sc = lievi.load(os.path.join(SRC, "examples", path),
                    set={"integrator.method": method, "output.plots": False, "output.checkpoint_every": 25,
                         "integrator.t_end": 3.0})
    whole = lievi.run(sc, tmp_path / "whole")
    assert lievi.run(sc, tmp_path / "part", stop_at=17) is None
    assert os.path.exists(tmp_path / "part" / "checkpoint.h5")
    assert not os.path.exists(tmp_path / "part" / "summary.json")
    resumed = lievi.resume(tmp_path / "part")
    assert same_series(whole.series, resumed.series)
    assert without_timing(whole.summary) == without_timing(resumed.summary)


def test_extension_equals_the_longer_run(tmp_path):
    path = os.path.join(SRC, "examples", "mechanics", "double_pendulum.toml")
    sets = {"output.plots": False, "output.checkpoint_every": 100, "output.every": 3}
    lievi.run(lievi.load(path, set={**sets, "integrator.t_end": 1.0}), tmp_path / "short")
    longer = lievi.run(lievi.load(path, set={**sets, "integrator.t_end": 2.0}), tmp_path / "long")
    extended = lievi.resume(tmp_path / "short", set={"integrator.t_end": 2.0})
    assert same_series(longer.series, extended.series)
    assert without_timing(longer.summary) == without_timing(extended.summary)


def test_an_ensemble_stopped_between_paths_resumes_to_the_whole_ensemble(tmp_path):
    path = os.path.join(SRC, "examples", "wave", "independent.toml")
    sc = lievi.load(path, set={"output.plots": False, "output.per_path": True, "output.checkpoint_every": 50,
                               "integrator.t_end": 0.02})
    whole = lievi.run(sc, tmp_path / "whole", paths=4)
    assert lievi.run(sc, tmp_path / "part", paths=4, stop_at=3) is None
    assert not os.path.exists(tmp_path / "part" / "series_mean.csv")
    resumed = lievi.resume(tmp_path / "part")
    assert same_series(whole.mean, resumed.mean) and same_series(whole.std, resumed.std)
    assert whole.paths.keys() == resumed.paths.keys() == {0, 1, 2, 3}
    assert all(same_series(whole.paths[k], resumed.paths[k]) for k in whole.paths)
    assert without_timing(whole.summary) == without_timing(resumed.summary)
    with pytest.raises(lievi.InputError, match="cannot be extended"):
        lievi.resume(tmp_path / "whole", set={"integrator.t_end": 0.04})
    with pytest.raises(lievi.InputError, match="the ensemble has 4 paths"):
        lievi.run(sc, tmp_path / "c", paths=4, stop_at=4)


def test_what_cannot_be_resumed_raises_input_error(tmp_path):
    path = os.path.join(SRC, "examples", "mechanics", "kepler.toml")
    sc = lievi.load(path, set={"output.plots": False, "integrator.t_end": 2.0})
    lievi.run(sc, tmp_path / "a", stop_at=50)
    with pytest.raises(lievi.InputError, match="model.mu.*differs from the checkpoint"):
        lievi.resume(tmp_path / "a", set={"model.mu": 2.0})
    with pytest.raises(lievi.InputError, match="no checkpoint here"):
        os.makedirs(tmp_path / "empty")
        lievi.resume(tmp_path / "empty")
    with pytest.raises(lievi.InputError, match="stop_at"):
        lievi.run(sc, tmp_path / "b", stop_at=0)
    with pytest.raises(lievi.InputError, match="stop_at needs out"):
        lievi.run(sc, stop_at=10)
    with pytest.raises(lievi.InputError, match="stop_at"):
        lievi.run(sc, tmp_path / "c", stop_at=10 ** 6)
    # the refused calls left the stopped run resumable
    assert lievi.resume(tmp_path / "a").summary["status"] == "complete"


def test_slices_merged_from_python_equal_the_whole_ensemble(tmp_path):
    path = os.path.join(SRC, "examples", "beam", "stochastic_bending.toml")
    sc = lievi.load(path, set={"output.plots": False, "integrator.t_end": 0.003})
    whole = lievi.run(sc, tmp_path / "whole", paths=3)
    lievi.run(sc, tmp_path / "b", paths=3, path_range=(1, 3))
    lievi.run(sc, tmp_path / "a", paths=3, path_range=(0, 1))
    merged = lievi.merge([tmp_path / "b", tmp_path / "a"], tmp_path / "m")
    assert same_series(whole.mean, merged.mean) and same_series(whole.std, merged.std)
    assert without_timing(whole.summary) == without_timing(merged.summary)
    part = np.load(tmp_path / "b" / "series_paths.npy")  # the slice's per-path series, for numpy too
    assert part.shape[0] == 2 and part.shape[2] == len(whole.mean)
    with pytest.raises(lievi.InputError, match="missing"):
        lievi.merge([tmp_path / "b"], tmp_path / "m2")
    with pytest.raises(lievi.InputError, match="path_range"):
        lievi.run(sc, tmp_path / "c", paths=3, path_range=(2, 5))


def test_ensemble_quantiles_are_numpys_across_the_paths_and_merge(tmp_path):
    """output.quantiles: series_q<q>.csv equals numpy.quantile over the paths' own series, bit for bit (an
    independent computation), series_paths.npy holds those series, and merged slices give the same files."""
    path = os.path.join(SRC, "examples", "wave", "independent.toml")
    qs = [0.1, 0.5, 0.9]
    sc = lievi.load(path, set={"output.plots": False, "output.per_path": True, "integrator.t_end": 0.02,
                               "output.quantiles": qs})
    whole = lievi.run(sc, tmp_path / "whole", paths=7)
    assert sorted(whole.quantiles) == qs
    stack = {c: np.stack([whole.paths[k][c] for k in sorted(whole.paths)]) for c in whole.mean}
    for q in qs:
        for c in whole.mean:
            expected = stack[c][0] if c == "t" else np.quantile(stack[c], q, axis=0)
            assert np.array_equal(whole.quantiles[q][c].view(np.int64), expected.view(np.int64)), (q, c)
    npy = np.load(tmp_path / "whole" / "series_paths.npy")
    assert npy.shape == (7, len(whole.mean["t"]), len(whole.mean))
    assert np.array_equal(npy[:, :, 1], stack[list(whole.mean)[1]])
    lievi.run(sc, tmp_path / "s1", paths=7, path_range=(4, 7))
    lievi.run(sc, tmp_path / "s0", paths=7, path_range=(0, 4))
    merged = lievi.merge([tmp_path / "s1", tmp_path / "s0"], tmp_path / "m")
    for q in qs:
        assert same_series(whole.quantiles[q], merged.quantiles[q])
    with open(tmp_path / "whole" / "series_paths.npy", "rb") as a, open(tmp_path / "m" / "series_paths.npy", "rb") as b:
        assert a.read() == b.read()
    with pytest.raises(lievi.InputError, match="output.quantiles"):
        lievi.load(path, set={"output.quantiles": [0.5, 0.2]})
