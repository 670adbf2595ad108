"""Model scripts: Python model_args() (constants, env defaults, siblings, moe_layer_freq) and bash arrays."""
from __future__ import annotations

from pathlib import Path

from capture.extract.models import bash_model_args, extract_models, moe_layer_freq
from capture.extract.source import Source

TREE = Path(__file__).parent / "fixtures" / "models"


def models() -> dict[str, dict]:
    blobs = {p.relative_to(TREE).as_posix(): p.read_bytes() for p in TREE.rglob("*") if p.is_file()}
    src = Source(commit="0" * 40, commit_date="2026-01-01", read_from="checkout", blobs=blobs)
    return {m["name"]: m for m in extract_models(src)}


def test_python_script_with_env_default_and_constants():
    tiny = models()["tiny"]
    assert (tiny["file"], tiny["line"]) == ("scripts/models/tiny.py", 7)
    assert [tiny[k] for k in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "head_dim", "vocab")] == [
        2, 8, 16, 2, 1, 4, 10]
    assert tiny["tied_embeddings"] is True and tiny["experts"] is None and tiny["moe_layers"] is None
    assert tiny["env_defaults"] == ["TINY_LAYERS"]
    assert "--swiglu" in tiny["switches"] and tiny["normalization"] == "RMSNorm"


def test_sibling_override():
    assert models()["tiny-1layer"]["layers"] == 1


def test_moe_script():
    moe = models()["tiny-moe"]
    assert (moe["experts"], moe["topk"], moe["moe_ffn_hidden"], moe["moe_layers"]) == (4, 1, 4, 2)
    assert moe["tied_embeddings"] is False
    assert moe_layer_freq(nlayers=4, first_k_dense_replace=1) == "[0,1,1,1]"


def test_bash_array_with_continuations_variables_and_defaults():
    sh = models()["tiny-bash"]
    assert (sh["layers"], sh["hidden"], sh["ffn_hidden"], sh["heads"], sh["vocab"]) == (3, 8, 16, 2, 10)
    assert sh["kv_heads"] == 2  # no GQA: one KV head per query head
    assert sh["null_reasons"]["head_dim"].startswith("no --kv-channels")
    tokens, line, used = bash_model_args("MODEL_ARGS=(--num-layers ${L:-4})\n")
    assert (tokens, line, used) == (["--num-layers", "4"], 1, ["L"])


def test_unreadable_script_is_null_with_a_reason():
    broken = models()["broken"]
    assert broken["layers"] is None and "random.randint" in broken["null_reasons"]["*"]
