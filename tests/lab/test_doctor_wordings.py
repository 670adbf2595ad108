"""Wordings of one failure that 7.1's entries know beyond the line the first thread showed: each is the fixed text
of a program a Miles run starts (SGLang, PyTorch, Ray, transformers, the kernel), as its source or 7.1 quotes it.

The logs are synthetic (tests/lab/test_doctor_ranking.py, RANKING_LOGS, which the parity test also runs through the
page's doctor); the development set of the corpus holds the public threads these wordings came with.
"""
from __future__ import annotations

import pytest

from doctor_corpus import _read_run, diagnosis, load_set
from test_doctor_ranking import diagnose, ids, logs  # noqa: F401  (the fixture)

pytestmark = pytest.mark.unit

RR = _read_run()

def _case(case_id: str) -> dict:
    return next(c for c in load_set("development")["cases"] if c["id"] == case_id)


FIRST = {
    "rank-engine-fraction.log": "engine-mem-fraction-too-small",
    "rank-engine-fraction-new.log": "engine-mem-fraction-too-small",
    "rank-engine-cuda-error-oom.log": "engine-oom",
    "rank-port-torch-store.log": "engine-port-in-use",
    "rank-port-socket.log": "engine-port-in-use",
    "rank-router-503.log": "engine-no-available-workers",
    "rank-ray-unschedulable.log": "ray-placement-group-wait",
    "rank-processor-template.log": "chat-template-missing",
    "rank-kernel-oom-killer.log": "engine-terminated",
    "rank-ray-memory-advice.log": "ray-oom-memory-pressure",
    "rank-torch-arch-warning.log": "torch-build-lacks-gpu-arch",
    "rank-max-retries-budget.log": "engine-max-retries",
    "rank-args-kl-both.log": "args-kl-coef-both",
    "rank-args-tis.log": "args-rollout-logprobs-tis",
    "rank-args-eval.log": "args-eval-datasets",
    "rank-args-fsdp-cp.log": "args-fsdp-context-parallel",
    "rank-not-enough-samples.log": "args-not-enough-samples",
    "rank-data-path.log": "data-path-missing",
    "rank-data-format.log": "data-unsupported-format",
    "rank-megatron-total-model-size.log": "args-parallel-world-size",
    "rank-miles-router-no-healthy.log": "engine-no-available-workers",
    "rank-torch-stream-writer.log": "ckpt-disk-full",
    "rank-safetensors-full.log": "ckpt-disk-full",
    "rank-port-old-torch.log": "engine-port-in-use",
    "rank-transformers-model-type.log": "transformers-unknown-model-type",
    "rank-hf-path.log": "hf-checkpoint-missing",
    "rank-args-disk-delta-colocate.log": "args-p2p-colocate",
    # issue 56: wordings from the raise sites 7.1 cites
    "rank-port-zmq.log": "engine-port-in-use",
    "rank-sglang-arch.log": "transformers-unknown-model-type",
    "rank-zip-writer-pos.log": "ckpt-disk-full",
    "rank-torch-write-fd.log": "ckpt-disk-full",
    "rank-rust-no-space.log": "ckpt-disk-full",
    "rank-quota.log": "ckpt-disk-full",
    "rank-dataloader-shm.log": "nccl-shm-too-small",
    "rank-ray-threshold.log": "ray-oom-killed",
    "rank-ray-old-monitor.log": "ray-oom-killed",
    "rank-autoscaler-infeasible.log": "ray-placement-group-wait",
    "rank-ray-no-instance.log": "ray-gcs-connect-failed",
    "rank-clip-nonfinite.log": "train-grad-norm-nan-raised",
    "rank-illegal-address-driver.log": "mem-illegal-access",
    "rank-nccl-cuda-oom.log": "engine-oom",
    "rank-nccl-calloc.log": "engine-oom",
    "rank-runtime-oom-name.log": "engine-oom",
    "rank-thc-oom.log": "engine-oom",
    "rank-megatron-yaml-world.log": "args-parallel-world-size",
    "rank-default-template.log": "chat-template-missing",
    "rank-hf-not-identifier.log": "hf-checkpoint-missing",
    "rank-hf-no-config.log": "hf-checkpoint-missing",
    "rank-hf-tokenizer.log": "hf-checkpoint-missing",
    "rank-sglang-child-killed.log": "engine-terminated",
    "rank-kernel-old-oom.log": "engine-terminated",
    "rank-torch-old-gpu.log": "torch-build-lacks-gpu-arch",
    "rank-thc-no-kernel.log": "torch-build-lacks-gpu-arch",
    "rank-pidfd-getfd-eperm.log": "ipc-expandable-segments",
    "rank-ray-object-store-shm.log": "ray-object-store-shm",
    "rank-flash-attn-abi.log": "flash-attn-abi-mismatch",
    # issue 56 (rules): the releases a reader meets, from their raise sites
    "rank-driver-oom.log": "engine-oom",
    "rank-sglang-swa-pool.log": "engine-mem-fraction-too-small",
    "rank-sglang-prefill-oom.log": "engine-mem-fraction-too-small",
    "rank-sglang-token-oom.log": "engine-mem-fraction-too-small",
    "rank-sglang-decode-oom.log": "engine-mem-fraction-too-small",
    "rank-sglang-scheduler-killed.log": "engine-terminated",
    "rank-hf-gated.log": "hf-checkpoint-missing",
    "rank-automodel-causal.log": "transformers-unknown-model-type",
    "rank-sglang-port-wait.log": "engine-port-in-use",
}

#: Lines that name no cause 7.1 has (a write refused for another reason; SGLang saying only that a child failed) or that
#: healthy runs print too (Ray's object store on /tmp): no entry.
NO_ENTRY = ("rank-torch-write-eio.log", "rank-sglang-sigquit.log", "rank-ray-object-store-tmp.log",
            "rank-sglang-scheduler-died.log")


@pytest.mark.parametrize("name", NO_ENTRY)
def test_a_write_error_that_names_another_reason_names_no_entry(logs, name):  # noqa: F811
    got, _ = diagnose(logs[name])
    assert ids(got) == [], ids(got)


@pytest.mark.parametrize("name", sorted(FIRST))
def test_each_wording_names_its_entry_first(logs, name):  # noqa: F811
    got, _ = diagnose(logs[name])
    assert ids(got)[:1] == [FIRST[name]], ids(got)


def test_the_engine_fraction_entry_raises_what_engine_oom_lowers(logs):  # noqa: F811
    got, _ = diagnose(logs["rank-engine-fraction.log"])
    assert "Raise --sglang-mem-fraction-static" in got[0]["fix"]
    assert got[0]["facts"].get("phase") == "engine_start"  # the memory pool's frame: the engine was starting


def test_a_cuda_graph_capture_failure_is_the_engine_starting():
    got = diagnosis(RR, _case("sglang-5285")["excerpt"])
    assert got[0]["id"] == "engine-oom" and got[0]["facts"]["phase"] == "engine_start", got[0]["facts"]


def test_a_placement_wait_and_rays_unschedulable_line_are_one_entry(logs):  # noqa: F811
    got, _ = diagnose(logs["rank-ray-unschedulable.log"])
    assert ids(got) == ["ray-placement-group-wait"] and got[0]["count"] == 2


def test_the_kernel_report_is_one_entry_from_its_first_line(logs):  # noqa: F811
    got, _ = diagnose(logs["rank-kernel-oom-killer.log"])
    assert ids(got) == ["engine-terminated"] and got[0]["line"] == 1 and got[0]["count"] == 2


def test_the_cuda_12_library_is_a_cause_of_the_sgl_kernel_import_failure():
    got = diagnosis(RR, _case("sglang-29646")["excerpt"])
    assert got[0]["id"] == "gb10-no-kernel-image"
    assert any("libnvrtc.so.12" in c["tells"] for c in got[0]["causes"])


def test_a_full_disk_is_its_own_entry_not_nccls():
    assert [m["id"] for m in diagnosis(RR, _case("dolly-139")["excerpt"])] == ["ckpt-disk-full"]
    assert [m["id"] for m in diagnosis(RR, _case("pytorch-ci-infra-490")["excerpt"])] == ["nccl-shm-too-small"]


@pytest.mark.parametrize("name, phase", [("rank-fsdp-logprob-oom.log", "logits"), ("rank-fsdp-backward-oom.log", "trainer")])
def test_mileses_own_frames_place_an_oom_in_the_trainer(logs, name, phase):  # noqa: F811
    got, _ = diagnose(logs[name])
    assert got[0]["id"] == "mem-oom-trainer" and got[0]["facts"]["phase"] == phase, (ids(got), got[0]["facts"])


def test_pytorchs_pre_1_4_oom_wording_is_the_trainers_oom(logs):  # noqa: F811
    got, _ = diagnose(logs["rank-torch-old-oom.log"])
    assert "mem-oom-trainer" in ids(got)[:2], ids(got)


def test_a_traceback_no_entry_knows_gets_no_entry(logs):  # noqa: F811
    got, _ = diagnose(logs["rank-unknown-traceback.log"])
    assert got == [], ids(got)


@pytest.mark.parametrize("name", ["rank-args-kl-both.log", "rank-args-tis.log", "rank-args-eval.log",
                                  "rank-args-fsdp-cp.log", "rank-data-path.log", "rank-data-format.log"])
def test_a_miles_argument_check_is_one_entry(logs, name):  # noqa: F811
    got, _ = diagnose(logs[name])
    assert ids(got) == [FIRST[name]], ids(got)


@pytest.mark.parametrize("name, first, phase", [("rank-cublas-engine.log", "engine-oom", "engine"),
                                                ("rank-cublas-trainer.log", "mem-oom-trainer", "trainer")])
def test_cublas_allocation_failure_goes_where_its_frames_are(logs, name, first, phase):  # noqa: F811
    got, _ = diagnose(logs[name])
    assert got[0]["id"] == first and got[0]["facts"]["phase"] == phase, (ids(got), got[0]["facts"])


@pytest.mark.parametrize("name", ["rank-config-no-model-type.log", "rank-config-no-model-type-5.log"])
def test_no_model_type_is_a_tie_with_a_missing_config(logs, name):  # noqa: F811
    """transformers 5.12.1 (Miles's pin) words a directory without config.json as a config without `model_type`
    (utils/hub.py cached_files skips the file, configuration_utils.py returns {}, configuration_auto.py raises): the
    doctor says it cannot tell the two apart and shows the check that does (whether config.json exists)."""
    got, settings = diagnose(logs[name])
    assert len(got) == 2 and got[0]["line"] == got[1]["line"], ids(got)
    pair = {got[0]["id"], *(u["id"] for u in got[0]["undecided"])}
    assert pair == {"hf-checkpoint-missing", "transformers-unknown-model-type"}, (ids(got), got[0]["undecided"])
    text = RR.render_diagnosis(got, [], [], settings)
    assert "the log cannot tell these apart" in text and "first because" not in text
    assert "/config.json" in text and 'grep -n \'"model_type"\'' in text


@pytest.mark.parametrize("name", ["rank-nccl-watchdog.log", "rank-nccl-watchdog-stuck.log"])
def test_the_nccl_watchdog_alone_names_its_entry(logs, name):  # noqa: F811
    got, _ = diagnose(logs[name])
    assert ids(got) == ["nccl-watchdog-timeout"] and got[0]["facts"]["others"] == "none"


@pytest.mark.parametrize("name", ["rank-ray-actor-died.log", "rank-ray-actor-error-old.log"])
def test_an_actor_death_alone_names_its_entry(logs, name):  # noqa: F811
    got, _ = diagnose(logs[name])
    assert ids(got) == ["ray-actor-died"], ids(got)


@pytest.mark.parametrize("name, first, then", [
    ("rank-nccl-watchdog-after-error.log", "mem-illegal-access", "nccl-watchdog-timeout"),
    ("rank-ray-actor-died-after-error.log", "ckpt-disk-full", "ray-actor-died"),
    ("rank-ray-actor-creation.log", "hf-checkpoint-missing", "ray-actor-died"),
])
def test_a_line_that_reports_another_error_ranks_below_that_error(logs, name, first, then):  # noqa: F811
    """The watchdog and an actor's death report an error; the entry that names the error comes first, and the reason
    says to read the first error above."""
    got, settings = diagnose(logs[name])
    assert ids(got)[0] == first and then in ids(got), ids(got)
    later = next(m for m in got if m["id"] == then)
    assert later["facts"]["others"] == "matched" and "which this line may only report" in later["against"][0]
    text = RR.render_diagnosis(got, [], [], settings)
    assert f"less likely: line {got[0]['line']} matched an entry that names an error of its own" in text

