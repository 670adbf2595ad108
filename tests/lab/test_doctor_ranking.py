"""The log doctor's advice: which of several matched 7.1 entries comes first and why, each entry's causes
in the order to check, the fixes the run's backend and batching allow, and where a bad signal leads.

Public logs (tests/fixtures/public-logs/) where a thread has one; synthetic logs, written here and named
as such, for what no public log shows. `ranking_logs` is also read by tests/lab/test_doctor_parity.py,
so the page's doctor gives the same ranking on each.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from capture.lab import symptoms
from labutil import in_process
from miles101 import doctor_rules
from miles101.tools import read_run as rr
from test_doctor_parity import _row

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "tests" / "fixtures" / "public-logs"
BASE = dict(reward=0.3, length=300.0, trunc=0.01, zero=0.2, gap=0.01, clip=0.01, grad=0.3, time=40.0)
T = "[2026] timer.py:31 - Timer"
OOM_SMALL = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
             "79.11 GiB of which 1.50 GiB is free. Of the allocated memory 60.00 GiB is allocated by PyTorch, and 6.54 GiB "
             "is reserved by PyTorch but unallocated.")
# The same request with less held reserved but unallocated than it asks: not fragmentation, though far less is
# free than asked in both (`is free` is the device's free memory, not PyTorch's cache).
OOM_SMALL_WHOLE = OOM_SMALL.replace("6.54 GiB is reserved", "1.20 GiB is reserved")
# torch_memory_saver's refusal inside its margin (csrc/core.cpp at the commit Miles's image installs), then PyTorch's
# message: plenty free, nothing reserved, no fragmentation at all.
TMS_MARGIN = ("[torch_memory_saver.cpp] TorchMemorySaver::malloc return OOM since memory_margin_bytes=1073741824 "
              "allocation_size=2147483648 free_bytes=2684354560")
OOM_AFTER_MARGIN = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                    "of 119.70 GiB of which 2.50 GiB is free. Of the allocated memory 30.00 GiB is allocated by PyTorch, "
                    "and 0 bytes is reserved by PyTorch but unallocated.")
OOM_BIG = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 61.34 GiB. GPU 3 has a total capacity of "
           "79.11 GiB of which 27.07 GiB is free.")
READY = "(SGLangEngine pid=5) [2026] INFO: The server is fired up and ready to roll!"
NO_WORKERS = ("(RolloutManager pid=9) retrying... (attempt 3/60, url=http://127.0.0.1:3000/generate, "
              "response=No available workers (all circuits open or unhealthy))")


def steps(n: int, **over: Any) -> list[str]:
    return [ln for s in range(n) for ln in _row(s, **{**BASE, **over})]


#: name → the lines of a synthetic log (none of these is quoted from a thread)
RANKING_LOGS: dict[str, list[str]] = {
    # an OOM inside the weight switch (timer open), small allocation: the switch entry first
    "rank-switch-oom.log": [*steps(1), f"{T} update_weights start", "  File \"x.py\", line 3, in update_weights",
                            OOM_SMALL],
    # the same message inside the trainer's forward pass, allocation smaller than free: fragmentation first
    "rank-trainer-fragmentation.log": [*steps(1), f"{T} actor_train start", "  File \"m.py\", line 9, in forward_step",
                                       OOM_SMALL],
    "rank-trainer-whole.log": [*steps(1), f"{T} actor_train start", "  File \"m.py\", line 9, in forward_step",
                               OOM_SMALL_WHOLE],
    "rank-trainer-margin.log": [*steps(1), f"{T} actor_train start", "  File \"m.py\", line 9, in forward_step",
                                TMS_MARGIN, OOM_AFTER_MARGIN],
    # the older message (before PyTorch 2.1): 8.00 - 1.00 GiB reserved unallocated is at least the 20 MiB asked
    "rank-trainer-old-message.log": ["  File \"m.py\", line 9, in forward_step",
                                     "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; "
                                     "79.35 GiB total capacity; 1.00 GiB already allocated; 6.19 MiB free; 8.00 GiB "
                                     "reserved in total by PyTorch)"],
    # one OOM line and no frame, no timer: nothing in the log tells the trainer, the switch and the engine apart
    "rank-oom-no-evidence.log": [OOM_SMALL],
    # a first GSM8K run on a thinking model: the samples have no label, the reward is 0, then memory runs out
    "rank-thinking-gsm8k.log": [
        "(RolloutManager pid=4) [2026] inference_rollout_train.py:131 - First rollout sample: text_preview=<|im_start|>user"
        "\\nWhat is 7 * 8?<|im_end|>\\n<|im_start|>assistant\\n<think>\\nSeven times eight...<truncated chars=9000>, "
        "label=None, reward_summary=0",
        *steps(3, reward=0.0, trunc=0.9),
        f"{T} actor_train start", "  File \"m.py\", line 9, in forward_step", OOM_SMALL_WHOLE],
    # the ready line before the 503s: not "sent before the engine was ready"
    "rank-workers-after-ready.log": [READY, *steps(2), NO_WORKERS, NO_WORKERS],
    "rank-workers-before-ready.log": [NO_WORKERS, NO_WORKERS, READY, *steps(2)],
    # zero reward over one step and over ten; with responses cut at the cap
    "rank-reward-one-step.log": steps(1, reward=0.0),
    "rank-reward-ten-steps.log": steps(10, reward=0.0),
    "rank-reward-truncated.log": steps(10, reward=0.0, trunc=0.6),
    # NaN and a very large gradient norm
    "rank-grad-nan.log": steps(10, grad=float("nan")),
    "rank-grad-large.log": steps(10, grad=3.0e9),
    # Megatron's argument dump: the backend and dynamic batching come from the log
    "rank-megatron-dump.log": ["  train_backend .................................... megatron",
                               "  use_dynamic_batch_size ........................... False",
                               "  rollout_batch_size ............................... 8", *steps(1),
                               "  File \"m.py\", line 373, in float_conversion", OOM_BIG],
    # out of memory while the engine starts, before it reported ready: the engine's entry first
    "rank-engine-start-oom.log": ["(SGLangEngine pid=3) [2026] Load weight end.",
                                  "(SGLangEngine pid=3) " + OOM_SMALL, "Server process terminated unexpectedly."],
    # the engine's access-log line for two POST paths, and a 200 that must not match
    "rank-access-500.log": ['(SGLangEngine pid=3) INFO:     127.0.0.1:5 - "POST /generate HTTP/1.1" 500 Internal Server Error',
                            '(SGLangEngine pid=3) INFO:     127.0.0.1:5 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'],
    "rank-access-200.log": ['(SGLangEngine pid=3) INFO:     127.0.0.1:5 - "POST /generate HTTP/1.1" 200 OK'],
    # wordings of the programs a Miles run starts, one log each (tests/lab/test_doctor_wordings.py): each line is the
    # program's fixed text as its source or 7.1 quotes it, around made-up paths and numbers
    "rank-engine-fraction.log": ["(SGLangEngine pid=3) [2026] Load weight end.",
                                 '(SGLangEngine pid=3)   File "/sgl-workspace/sglang/python/sglang/srt/model_executor/'
                                 'model_runner.py", line 310, in init_memory_pool',
                                 "(SGLangEngine pid=3) RuntimeError: Not enough memory. Please try to increase "
                                 "--mem-fraction-static."],
    "rank-engine-fraction-new.log": ["(SGLangEngine pid=3) ValueError: Loaded weights leave no GPU memory for the KV "
                                     "cache under --mem-fraction-static=0.3."],
    "rank-engine-cuda-error-oom.log": ['(SGLangEngine pid=3)   File "/sgl-workspace/sglang/python/sglang/srt/'
                                       'model_executor/cuda_graph_runner.py", line 400, in capture',
                                       "(SGLangEngine pid=3) RuntimeError: CUDA error: out of memory"],
    "rank-port-torch-store.log": ["RuntimeError: The server socket has failed to listen on any local network address. "
                                  "port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use"],
    "rank-port-socket.log": ["OSError: [Errno 98] Address already in use"],
    "rank-router-503.log": [*steps(1), "httpx.HTTPStatusError: Server error '503 Service Unavailable' for url "
                            "'http://127.0.0.1:3000/generate'"],
    "rank-ray-unschedulable.log": ["[2026] placement_group.py:113 - Creating placement group with 1 GPUs...",
                                   "WARNING worker.py:1093 -- The actor or task with ID ffffffffffffffff01000000 cannot "
                                   "be scheduled right now. It requires {GPU: 1.000000} for placement"],
    "rank-processor-template.log": ["ValueError: Cannot use apply_chat_template because this processor does not have "
                                    "a chat template."],
    "rank-kernel-oom-killer.log": ["[Mon Dec  7 10:00:00 2026] python3 invoked oom-killer: gfp_mask=0x140cca, order=0, "
                                   "oom_score_adj=0",
                                   "[Mon Dec  7 10:00:00 2026] Out of memory: Killed process 4242 (python3)"],
    "rank-ray-memory-advice.log": ["(raylet) Refer to the documentation on how to address the out of memory issue: "
                                   "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html."],
    # Miles's own frames (miles/backends/fsdp_utils/actor.py:353, :603) and PyTorch's under a backward pass
    "rank-fsdp-logprob-oom.log": ['  File "/root/miles/miles/backends/fsdp_utils/actor.py", line 380, in _compute_log_prob',
                                  OOM_BIG],
    "rank-fsdp-backward-oom.log": ['  File "/root/miles/miles/backends/fsdp_utils/actor.py", line 603, in _train_step',
                                   "    loss.backward()",
                                   '  File "/usr/local/lib/python3.12/dist-packages/torch/autograd/graph.py", line 823, '
                                   "in _engine_run_backward", OOM_BIG],
    # Miles's HTTP helper with a caller's own retry budget (miles/utils/http_utils.py:230)
    "rank-max-retries-budget.log": ["[2026] http_utils.py:230 - Max retries (5) reached, failing... "
                                    "(url=http://127.0.0.1:3000/abort_request)"],
    "rank-torch-arch-warning.log": ["UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible "
                                    "with the current PyTorch installation."],
    # Miles's argument checks and data reader, as their raise sites word them (miles/utils/arguments.py:2702, 3061,
    # 3134, 3143; miles/ray/rollout/rollout_data_conversion.py:45; miles/utils/data.py:33, 64)
    "rank-args-kl-both.log": ["Traceback (most recent call last):",
                              '  File "/root/miles/miles/utils/arguments.py", line 3134, in miles_validate_args',
                              "AssertionError: Only one of kl_coef and kl_loss_coef can be set"],
    "rank-args-tis.log": ["AssertionError: use_rollout_logprobs and use_tis cannot be set at the same time."],
    "rank-args-eval.log": ["AssertionError: Evaluation datasets must be configured when eval_interval is set."],
    "rank-args-fsdp-cp.log": ["AssertionError: Context parallelism is not supported for FSDP backend."],
    "rank-not-enough-samples.log": ["ray.exceptions.RayTaskError(ValueError): ray::RolloutManager.generate() "
                                    "(pid=4242, ip=127.0.0.1)",
                                    "ValueError: Not enough samples 8 for global_batch_size 64"],
    "rank-data-path.log": ["FileNotFoundError: Prompt dataset path '/root/gsm8k/train.parquet' does not exist."],
    "rank-data-format.log": ["ValueError: Unsupported file format: /root/gsm8k/train.json. Supported formats are .jsonl "
                             "and .parquet."],
    "rank-args-disk-delta-colocate.log": ["AssertionError: Disk-delta weight transfer mode is not compatible with "
                                          "--colocate. Colocate transfers weights via CUDA IPC (only a handle crosses "
                                          "processes), so the delta bookkeeping (snapshot + diff + encode) is pure "
                                          "overhead."],
    # Megatron's own argument check (megatron/training/arguments.py), Miles's router (miles/router/router.py:227)
    "rank-megatron-total-model-size.log": ["AssertionError: world size (1) is not divisible by total_model_size "
                                           "(total_model_size=2)"],
    "rank-miles-router-no-healthy.log": ["RuntimeError: No healthy workers available in the pool"],
    # PyTorch's zip writer and a safetensors (Rust) writer refusing a write on a full disk; old c10d's port clash
    "rank-torch-stream-writer.log": ["RuntimeError: [enforce fail at inline_container.cc:595] . PytorchStreamWriter "
                                     "failed writing file data/12: file write failed"],
    "rank-safetensors-full.log": ['safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, '
                                  'kind: StorageFull, message: "No space left on device" })'],
    "rank-port-old-torch.log": ["RuntimeError: Address already in use"],
    # PyTorch before 1.4: `... free; ... cached)`
    "rank-torch-old-oom.log": ["RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total "
                               "capacity; 6.72 GiB already allocated; 2.41 MiB free; 6.81 GiB cached)"],
    # transformers' AutoConfig on a model type its release does not know (models/auto/configuration_auto.py)
    "rank-transformers-model-type.log": ["ValueError: The checkpoint you are trying to load has model type `qwen3` but "
                                         "Transformers does not recognize this architecture. This could be because of an "
                                         "issue with the checkpoint, or because your version of Transformers is out of "
                                         "date."],
    # cuBLAS's allocation failure under the engine's frames and under the trainer's backward
    "rank-cublas-engine.log": ['(SGLangEngine pid=4242)   File "/sgl-workspace/sglang/python/sglang/srt/model_executor/'
                               'model_runner.py", line 1545, in forward',
                               "(SGLangEngine pid=4242) RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling "
                               "`cublasCreate(handle)`"],
    "rank-cublas-trainer.log": ['  File "/root/miles/miles/backends/fsdp_utils/actor.py", line 603, in _train_step',
                                "    loss.backward()",
                                "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"],
    # a --hf-checkpoint the job cannot see: huggingface_hub's id check, then transformers' rewording (utils/hub.py)
    "rank-hf-path.log": ["huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or "
                         "'namespace/repo_name': '/root/Qwen3-0.6B'. Use `repo_type` argument if needed.",
                         "OSError: Incorrect path_or_model_id: '/root/Qwen3-0.6B'. Please provide either the path to a "
                         "local folder or the repo_id of a model on the Hub."],
    # Wordings from the raise sites 7.1 cites for them, with made-up values (issue 56: rules that hold on new logs).
    # The C library's EADDRINUSE text through ZeroMQ, as SGLang's processes bind their sockets
    "rank-port-zmq.log": ["zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:30012')"],
    # transformers' AutoConfig on a config without model_type (models/auto/configuration_auto.py): the 4.x wording,
    # and 5.12.1's (the release Miles pins), which a directory with no config.json at all gives too
    "rank-config-no-model-type.log": ["ValueError: Unrecognized model in /root/ckpt. Should have a `model_type` key in "
                                      "its config.json, or contain one of the following strings in its name: albert"],
    "rank-config-no-model-type-5.log": ["ValueError: Unrecognized model in /root/Qwen3-0.6B. Should have a `model_type` "
                                        "key in its config.json."],
    # SGLang's model registry (python/sglang/srt/models/registry.py, _raise_for_unsupported)
    "rank-sglang-arch.log": ["ValueError: Model architectures ['FooForCausalLM'] are not supported for now. Supported "
                             "architectures: dict_keys(['LlamaForCausalLM', 'Qwen3ForCausalLM'])"],
    # PyTorch's zip writer (caffe2/serialize/inline_container.cc) and the old torch.save writer (torch/csrc/serialization.cpp)
    "rank-zip-writer-pos.log": ["RuntimeError: [enforce fail at inline_container.cc:626] . unexpected pos 1029636288 "
                                "vs 1029636176"],
    "rank-torch-write-fd.log": ["RuntimeError: write(): fd 41 failed with No space left on device"],
    "rank-rust-no-space.log": ["Error: No space left on device (os error 28)"],
    "rank-quota.log": ["OSError: [Errno 122] Disk quota exceeded: '/root/ckpt/iter_0000010'"],
    # the old writer's write() with another errno, and the zip writer's open: no sign of a full disk, no entry
    "rank-torch-write-eio.log": ["RuntimeError: write(): fd 29 failed with Input/output error"],
    # PyTorch's DataLoader SIGBUS handler (torch/csrc/DataLoader.cpp)
    "rank-dataloader-shm.log": ["ERROR: Unexpected bus error encountered in worker. This might be caused by "
                                "insufficient shared memory (shm)."],
    # Ray's memory monitor, the line after the exception; and Ray's monitor before 2.0 (memory_monitor.py)
    "rank-ray-threshold.log": ["Memory on the node (IP: 10.0.0.2, ID: 90ef) where the task (task ID: a675, "
                               "name=allocate, pid=91085, memory used=24.99GB) was running was 32.62GB / 33.28GB "
                               "(0.980175), which exceeds the memory usage threshold of 0.95."],
    "rank-ray-old-monitor.log": ["ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node host "
                                 "is used (60.1 / 62.8 GB). The top 10 memory consumers are:"],
    # Ray's autoscaler (python/ray/autoscaler/_private/autoscaler.py)
    "rank-autoscaler-infeasible.log": ["(autoscaler +1m2s) Error: No available node types can fulfill resource "
                                       "request {'GPU': 8.0, 'CPU': 8.0}. Add suitable node types to this cluster to "
                                       "resolve this issue."],
    # Ray's bootstrap address lookup (python/ray/_private/services.py)
    "rank-ray-no-instance.log": ["ConnectionError: Could not find any running Ray instance. Please specify the one to "
                                 "connect to by setting `--address` flag or `RAY_ADDRESS` environment variable."],
    # torch.nn.utils.clip_grad_norm_ with error_if_nonfinite=True (torch/nn/utils/clip_grad.py)
    "rank-clip-nonfinite.log": ["RuntimeError: The total norm of order 2.0 for gradients from `parameters` is "
                                "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
                                "by the non-finite norm anyway, set `error_if_nonfinite=False`"],
    # the CUDA driver API's error name
    "rank-illegal-address-driver.log": ["RuntimeError: Triton Error [CUDA]: CUDA_ERROR_ILLEGAL_ADDRESS"],
    # NCCL's CUDA checks (src/include/checks.h, alloc.h), the runtime's error name, PyTorch's THC
    "rank-nccl-cuda-oom.log": ["host:1234:1234 [0] include/alloc.h:114 NCCL WARN Cuda failure 'out of memory'"],
    "rank-nccl-calloc.log": ["host:1234:1234 [0] include/alloc.h:48 NCCL WARN Failed to CUDA calloc 6291456 bytes"],
    "rank-runtime-oom-name.log": ["thrust::system::system_error: cudaErrorMemoryAllocation: out of memory"],
    "rank-thc-oom.log": ["RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/"
                         "THCCachingAllocator.cpp:510"],
    # Megatron's YAML argument check (megatron/training/yaml_arguments.py)
    "rank-megatron-yaml-world.log": ["AssertionError: world size (1) is not divisible by tensor parallel size (2) "
                                     "times pipeline parallel size (1)"],
    # transformers before 4.43: a default template, with a warning (GPT2Tokenizer.default_chat_template)
    "rank-default-template.log": ["No chat template is set for this tokenizer, falling back to a default class-level "
                                  "template. This is very error-prone, because models are often trained with "
                                  "templates different from the class default!"],
    # transformers' hub lookup (utils/hub.py) and huggingface_hub (utils/_http.py)
    "rank-hf-not-identifier.log": ["OSError: /data/qwen3 is not a local folder and is not a valid model identifier "
                                   "listed on 'https://huggingface.co/models'"],
    "rank-hf-no-config.log": ["OSError: /root/ckpt does not appear to have a file named config.json. Checkout "
                              "'https://huggingface.co//root/ckpt/tree/None' for available files."],
    "rank-hf-tokenizer.log": ["OSError: Can't load tokenizer for '/root/ckpt'. If you were trying to load it from "
                              "'https://huggingface.co/models', make sure you don't have a local directory with the "
                              "same name."],
    # SGLang's launcher when a child process fails (python/sglang/srt/entrypoints/engine.py, sigquit_handler)
    "rank-sglang-sigquit.log": ["[2026-02-27 15:27:13] Received sigquit from a child process. It usually means the "
                                "child failed."],
    "rank-sglang-child-killed.log": ["[2026-02-27 15:27:12] Child process unexpectedly failed with exitcode=9. pid=4242"],
    # the kernel OOM report of older kernels (mm/oom_kill.c)
    "rank-kernel-old-oom.log": ["[11686.043641] Out of memory: Kill process 2603 (python3) score 761 or sacrifice child"],
    # PyTorch's capability check for a GPU older than the build (torch/cuda/__init__.py) and THC's CUDA check
    "rank-torch-old-gpu.log": ["    Found GPU0 Tesla K40m which is of cuda capability 3.5.",
                               "    PyTorch no longer supports this GPU because it is too old."],
    "rank-thc-no-kernel.log": ["RuntimeError: cuda runtime error (48) : no kernel image is available for execution "
                               "on the device at /pytorch/aten/src/THC/generic/THCTensorMath.cu:15"],
    # PyTorch's expandable segments over IPC (c10/cuda/CUDACachingAllocator.cpp, ExpandableSegment::fromShared)
    "rank-pidfd-getfd-eperm.log": ["RuntimeError: pidfd_getfd: Operation not permitted"],
    # Ray's object-store placement (python/ray/_private/services.py): the refusal, and the warning healthy runs print
    "rank-ray-object-store-shm.log": ["ValueError: The configured object store size (15.032385536 GB) exceeds /dev/shm "
                                      "size (4.500000768 GB). This will harm performance. Consider deleting files in "
                                      "/dev/shm or increasing its size with --shm-size in Docker."],
    "rank-ray-object-store-tmp.log": ["2024-03-20 06:43:30,508\tWARNING services.py:1996 -- WARNING: The object store is "
                                      "using /tmp instead of /dev/shm because /dev/shm has only 62910464 bytes "
                                      "available. This will harm performance!"],
    # a flash-attn extension built against another PyTorch: the loader's undefined symbol
    "rank-flash-attn-abi.log": ["ImportError: /usr/local/lib/python3.12/dist-packages/flash_attn_2_cuda.cpython-312-"
                                "x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEa"],
    # PyTorch's capability warning (torch/cuda/__init__.py, _check_capability), which healthy GB10 runs print: alone, a
    # note and no entry; beside a GB10 error, evidence for it (issue 56)
    "rank-gb10-warning-alone.log": ["/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:283: UserWarning: ",
                                    "    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.",
                                    "    Minimum and Maximum cuda capability supported by this version of PyTorch is",
                                    "    (8.0) - (12.0)"],
    "rank-gb10-warning-flashinfer.log": ["    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.",
                                         "ValueError: fmha_v2_prefill_sm120 is only supported on SM120 GPUs; SM121 has "
                                         "not been validated."],
    "rank-gb10-warning-libnuma.log": ["    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.",
                                      "OSError: libnuma.so.1: cannot open shared object file: No such file or directory",
                                      "[sgl_kernel] CRITICAL: Could not load any common_ops library!"],
    # PyTorch 2.11.0's NCCL watchdog (ProcessGroupNCCL.cpp; strings read in the 2.11.0 wheel), made-up values: alone, and
    # after an error of its own entry (an illegal memory access), which ranks first (issue 56)
    "rank-nccl-watchdog.log": ["[rank0]:[E1208 02:40:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught "
                               "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                               "Timeout(ms)=600000) ran for 600005 milliseconds before timing out.",
                               "[rank0]:[E1208 02:40:00.000000000 ProcessGroupNCCL.cpp:2268] [PG ID 0 PG GUID 0(default_pg) "
                               "Rank 0] First PG on this rank to signal dumping.",
                               "[rank0]:[E1208 02:40:00.000000000 ProcessGroupNCCL.cpp:690] Some NCCL operations have "
                               "failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU "
                               "operations might run on corrupted/incomplete data."],
    "rank-nccl-watchdog-after-error.log": ["RuntimeError: CUDA error: an illegal memory access was encountered",
                                           "[rank0]:[E1208 02:40:00.000000000 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0 "
                                           "Rank 0] Process group watchdog thread terminated with exception: CUDA error: "
                                           "an illegal memory access was encountered",
                                           "[rank0]:[E1208 02:50:00.000000000 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog "
                                           "caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=BROADCAST, "
                                           "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600010 milliseconds "
                                           "before timing out."],
    "rank-nccl-watchdog-stuck.log": ["[rank0]:[F1208 02:40:00.000000000 ProcessGroupNCCL.cpp:1557] [PG ID 0 PG GUID 0 "
                                     "Rank 0] [PG ID 0 PG GUID 0(default_pg) Rank 0] ProcessGroupNCCL's watchdog got "
                                     "stuck for 480 seconds without making progress in monitoring enqueued collectives."],
    # Ray's ActorDiedError (python/ray/exceptions.py at ray-2.60.0) with the GCS's exit detail, made-up ids: alone, and
    # after an error of its own entry (a full disk), which ranks first; Ray 2.9.0's RayActorError and a creation task
    "rank-ray-actor-died.log": ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
                                "\tclass_name: RolloutManager",
                                "\tactor_id: 6b2c9e6f1d5a3c0f8e7d2b1a01000000",
                                "\tpid: 4242",
                                "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
                                "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of "
                                "LOG file."],
    "rank-ray-actor-died-after-error.log": ["OSError: [Errno 28] No space left on device: '/root/ckpt/iter_0000010'",
                                            "ray.exceptions.ActorDiedError: The actor died unexpectedly before "
                                            "finishing this task."],
    "rank-ray-actor-error-old.log": ["ray.exceptions.RayActorError: The actor died unexpectedly before finishing this "
                                     "task."],
    "rank-ray-actor-creation.log": ["ray.exceptions.ActorDiedError: The actor died because of an error raised in its "
                                    "creation task, ray::MegatronTrainRayActor.__init__() (pid=4242, ip=10.0.0.2)",
                                    "ValueError: Unrecognized model in /root/Qwen3-0.6B. Should have a `model_type` "
                                    "key in its config.json."],
    # Wordings of the library releases a reader meets, from their raise sites, made-up values (issue 56):
    # PyTorch 2.11.0's check of a CUDA driver call ("CUDA driver error: " + the driver's text), in the engine
    "rank-driver-oom.log": ["[2026] (SGLangEngine pid=7) File \"/sgl-workspace/sglang/python/sglang/srt/model_executor/"
                            "model_runner.py\", line 1, in init_memory_pool",
                            "(SGLangEngine pid=7) RuntimeError: CUDA driver error: out of memory"],
    # SGLang v0.5.16's KV cache: a sliding-window pool cap, and a batch the cache cannot hold (pool_configurator.py,
    # mem_cache/allocation.py)
    "rank-sglang-swa-pool.log": ["RuntimeError: SWA pool cap (4096 tokens, 1.50 GiB) leaves no room for the full KV pool "
                                 "within the available 1.20 GiB. Reduce --max-running-requests, lower "
                                 "SGLANG_SWA_EVICTION_INTERVAL, or increase --mem-fraction-static."],
    "rank-sglang-prefill-oom.log": ["RuntimeError: Prefill out of memory. Try to lower your batch size.",
                                    "Try to allocate 8192 tokens."],
    "rank-sglang-token-oom.log": ["RuntimeError: Out of memory. Try to lower your batch size.",
                                  "Try to allocate 64 tokens."],
    "rank-sglang-decode-oom.log": ["RuntimeError: Decode out of memory. Try to lower your batch size.",
                                   "Try to allocate 32 tokens."],
    # SGLang v0.5.16's launcher when a scheduler is killed while it starts (entrypoints/engine.py)
    "rank-sglang-scheduler-killed.log": ["RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If "
                                         "exit code is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T "
                                         "| grep -i oom` to check."],
    # and another exit code: not the OOM killer's signal, no entry
    "rank-sglang-scheduler-died.log": ["RuntimeError: Rank 0 scheduler died during initialization (exit code: 1). If "
                                       "exit code is -9 (SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T "
                                       "| grep -i oom` to check."],
    # transformers 5.12.1: a gated Hub id (utils/hub.py) and a config type with no causal-LM class (auto_factory.py)
    "rank-hf-gated.log": ["OSError: You are trying to access a gated repo.",
                          "Make sure to have access to it at https://huggingface.co/meta-llama/Llama-3.2-1B."],
    "rank-automodel-causal.log": ["ValueError: Unrecognized configuration class <class 'transformers.models.t5."
                                  "configuration_t5.T5Config'> for this kind of AutoModel: AutoModelForCausalLM."],
    # SGLang v0.5.16's wait for its own ports (server_args.py PortArgs, utils/network.py wait_port_available)
    "rank-sglang-port-wait.log": ["[2026-01-01 00:00:00] Port is already in use. dist_init_port=30005 port_base=30000 "
                                  "detokenizer_port=30001 nccl_port=30002 scheduler_input_port=30003",
                                  "ValueError: detokenizer_port at 30001 is not available in 600 seconds. "
                                  "detokenizer_port at 30001 is not available"],
    # a traceback whose exception no entry knows: no entry, however error-like the lines look
    "rank-unknown-traceback.log": ["Traceback (most recent call last):",
                                   '  File "/root/miles/miles/utils/data.py", line 90, in __init__',
                                   "KeyError: 'question'", "RuntimeError: job failed"],
}
FSDP_ARGS = "python3 train.py\n--train-backend fsdp\n--colocate\n--rollout-batch-size 8\n--max-tokens-per-gpu 4096"


def ranking_logs(tmp: Path) -> list[Path]:
    out = []
    for name, lines in RANKING_LOGS.items():
        p = tmp / name
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(p)
    return out


def diagnose(path: Path, args: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    lines = rr.read_log_file(str(path))
    _, _, report = rr.report_of(lines, 10, rr.groups_in_log(lines))
    settings = rr.settings_of_args(args, "run") if args else rr.settings_in_log(lines)
    return rr.diagnose(lines, report, settings), settings


@pytest.fixture()
def logs(tmp_path: Path) -> dict[str, Path]:
    return {p.name: p for p in ranking_logs(tmp_path)}


def ids(matches: list[dict[str, Any]]) -> list[str]:
    return [m["id"] for m in matches]


def test_slime_1767_logits_upcast_ranks_the_trainer_entry_first():
    """THUDM/slime#1767: `val.float()` in Megatron's float_conversion, 61.34 GiB asked, 410.55 MiB held reserved but
    unallocated. The one OOM line is one entry; the switch's and the engine's entries are 'also matched'."""
    got, settings = diagnose(PUBLIC / "slime-1767-train-oom.log")
    assert ids(got) == ["mem-oom-trainer"], ids(got)
    first = got[0]
    also = {a["id"]: a for a in first["also_matched"]}
    assert set(also) == {"mem-torch-oom-switch", "engine-oom"} and first["undecided"] == []
    assert first["facts"]["phase"] == "logits" and first["facts"]["alloc"] == "whole"
    assert "float_conversion" in first["why"][0] and all(first["score"] > a["score"] for a in also.values())
    cause = first["causes"][0]
    assert cause["cause"].startswith("One micro-batch needs more than PyTorch can find")
    assert "410.55 MiB" in cause["why"][0] and "61.34 GiB" in cause["why"][0]
    assert settings["from"] is None  # a traceback excerpt: no arguments, so every fix names what it needs
    fixes = cause["fixes"]
    assert "With --use-dynamic-batch-size: Lower --max-tokens-per-gpu." in fixes
    assert any(f.startswith("Without --use-dynamic-batch-size: ") and "caps nothing" in f for f in fixes)
    assert "On FSDP (--train-backend fsdp): Turn on --gradient-checkpointing." in fixes
    text = rr.render_diagnosis(got, [], [], settings)
    assert "also matched on this line: 7.1 torch.OutOfMemoryError" in text
    assert "Run settings: unknown" in text and "FSDP prints none" in text


def test_slime_1951_logprob_oom_is_trainer_side_too():
    got, _ = diagnose(PUBLIC / "slime-1951-logprob-oom.log")
    assert ids(got)[0] == "mem-oom-trainer" and got[0]["facts"]["phase"] == "logits"
    assert got[0]["facts"]["alloc"] == "whole"  # 58.15 GiB asked, 2.06 GiB held reserved but unallocated


def test_switch_and_fragmentation_synthetic(logs):
    got, _ = diagnose(logs["rank-switch-oom.log"])
    assert ids(got)[0] == "mem-torch-oom-switch" and got[0]["facts"]["phase"] == "switch", ids(got)
    assert "update_weights" in got[0]["why"][0]
    got, _ = diagnose(logs["rank-trainer-fragmentation.log"])
    assert ids(got)[0] == "mem-oom-trainer" and got[0]["facts"] == {**got[0]["facts"], "phase": "trainer", "alloc": "fragmented"}
    assert got[0]["causes"][0]["cause"].startswith("Fragmentation")
    assert "2.00 GiB" in got[0]["causes"][0]["why"][0] and "6.54 GiB" in got[0]["causes"][0]["why"][0]


def test_engine_start_oom_ranks_the_engine_entry_first(logs):
    got, _ = diagnose(logs["rank-engine-start-oom.log"])
    assert ids(got) == ["engine-oom", "engine-terminated"], ids(got)  # the OOM, then what it did to the engine
    assert got[0]["facts"]["phase"] == "engine" and got[1]["facts"]["ready"] == "before"
    for a in got[0]["also_matched"]:  # the trainer's and the switch's entries, ranked down by the engine's frames
        assert a["score"] < 0, a["id"]


def test_fixes_follow_the_run_file_or_the_megatron_dump(logs):
    got, settings = diagnose(PUBLIC / "slime-1767-train-oom.log", FSDP_ARGS)
    assert settings == {"from": "run", "line": None, "backend": "fsdp", "dynamic_batch": "off", "unknown": {}}
    fixes = got[0]["causes"][0]["fixes"]
    assert not any("Lower --max-tokens-per-gpu." == f or f.startswith("With --use-dynamic") for f in fixes), fixes
    assert fixes[0].startswith("Set --use-dynamic-batch-size") and "Turn on --gradient-checkpointing." in fixes
    got, settings = diagnose(logs["rank-megatron-dump.log"])
    assert settings == {"from": "dump", "line": 1, "backend": "megatron", "dynamic_batch": "off"}
    fixes = got[0]["causes"][0]["fixes"]
    assert not any("gradient-checkpointing" in f for f in fixes), fixes  # an FSDP flag on a Megatron run
    assert "Run settings, from Megatron's argument dump (line 1): --train-backend megatron, without" in \
        rr.render_diagnosis(got, [], [], settings)
    on = rr.settings_of_args("- --use-dynamic-batch-size\n- --max-tokens-per-gpu\n- '8192'", "run")
    assert on == {"from": "run", "line": None, "backend": "megatron", "dynamic_batch": "on", "unknown": {}}  # Miles's default backend


def test_run_option_reaches_diagnose_and_needs_no_batch_size(tmp_path):
    run = tmp_path / "launch.sh"
    run.write_text("python3 train.py --train-backend fsdp --use-dynamic-batch-size --max-tokens-per-gpu $TOK\n")
    res = in_process(rr.main, str(PUBLIC / "slime-1767-train-oom.log"), "--diagnose", "--json", "--run", str(run))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["settings"]["backend"] == "fsdp" and out["settings"]["dynamic_batch"] == "on"
    assert out["matches"][0]["causes"][0]["fixes"][:2] == ["Lower --max-tokens-per-gpu.", "Turn on --gradient-checkpointing."]


def test_no_available_workers_causes_follow_the_ready_line(logs):
    got, _ = diagnose(PUBLIC / "slime-1148-not-ready.log")
    causes = got[0]["causes"]
    assert got[0]["facts"]["ready"] == "before" and causes[0]["cause"].startswith("Rollout sent requests before")
    assert [c["cause"].split()[0] for c in causes] == ["Rollout", "A", "An"]
    got, _ = diagnose(logs["rank-workers-before-ready.log"])
    assert got[0]["causes"][0]["cause"].startswith("Rollout sent requests before")
    got, _ = diagnose(logs["rank-workers-after-ready.log"])
    assert got[0]["facts"]["ready"] == "after"
    assert not got[0]["causes"][0]["cause"].startswith("Rollout sent requests before"), got[0]["causes"]
    assert any(c["cause"].startswith("A proxy") for c in got[0]["causes"])


def test_zero_reward_counts_steps_and_follows_3_1(logs):
    one, _ = diagnose(logs["rank-reward-one-step.log"])
    ten, _ = diagnose(logs["rank-reward-ten-steps.log"])
    z1 = next(m for m in one if m["id"] == "reward-flat-zero")
    z10 = next(m for m in ten if m["id"] == "reward-flat-zero")
    assert "the one step read" in z1["text"] and "every step" not in z1["text"]
    assert "all 10 steps read" in z10["text"]
    assert z1["facts"]["steps"] == "one" and z1["score"] < 0 and "weak evidence" in z1["against"][0]
    assert z10["facts"]["steps"] == "several" and z10["score"] > 0
    order = [c["cause"] for c in z10["causes"]]  # 3.1's order; an ok truncation verdict moves the cut last
    assert [o.split()[1] for o in order] == ["label", "responses", "reward", "responses"], order
    assert "truncation verdict is ok" in z10["causes"][-1]["against"][0]
    cut, _ = diagnose(logs["rank-reward-truncated.log"])
    z = next(m for m in cut if m["id"] == "reward-flat-zero")
    assert z["causes"][0]["cause"].startswith("The responses stop at the length cap"), z["causes"]
    page = (ROOT / "sections" / "3-1-train-math-on-gsm8k.md").read_text(encoding="utf-8")
    said = re.search(r"is zero from the first step, check in this order: (.*?)\.", page, re.S)[1]
    keys = ["label key", "\\boxed{}", "length cap", "reward type"]
    assert [said.find(k) for k in keys] == sorted(said.find(k) for k in keys) and -1 not in [said.find(k) for k in keys]


def test_every_bad_signal_names_an_entry(logs):
    data = symptoms.load()
    by_signal = {s["signal"]: s["id"] for s in data["symptoms"] if s.get("signal")}
    extremes = [[0.0] * 10, [1e12] * 10, [float("nan")] * 10, [0.0, 1e12, 0.0, 1e12] * 3, [1.0] * 10, [1e-9] * 10]
    for name, _, _, judge, _ in rr.SIGNALS:
        if name == "zero_std":
            bad = rr.judge_zero_std([0.95] * 10)[0] == "bad"
        else:
            bad = any(judge(v)[0] == "bad" for v in extremes)
        if bad:
            assert name in by_signal, f"{name} can read bad but no 7.1 entry has signal {name!r}"
    for log, entry in (("rank-grad-nan.log", "train-grad-norm"), ("rank-grad-large.log", "train-grad-norm")):
        got, _ = diagnose(logs[log])
        m = next(x for x in got if x["id"] == entry)
        assert m["causes"][0]["why"], (log, m["causes"])  # the cause the log shows comes first
    nan, _ = diagnose(logs["rank-grad-nan.log"])
    assert next(x for x in nan if x["id"] == "train-grad-norm")["causes"][0]["cause"].startswith("The forward pass overflows")
    big, _ = diagnose(logs["rank-grad-large.log"])
    assert next(x for x in big if x["id"] == "train-grad-norm")["causes"][0]["cause"].startswith("The norm stays large")
    prorl, _ = diagnose(PUBLIC / "prorl-40-step-lines-only.log")
    assert "train-grad-norm" in ids(prorl)


def test_access_log_500_for_any_post_path(logs):
    got, _ = diagnose(logs["rank-access-500.log"])
    assert ids(got) == ["engine-server-error-500"] and got[0]["count"] == 2
    assert diagnose(logs["rank-access-200.log"])[0] == []
    got, _ = diagnose(PUBLIC / "slime-1514-access-500.log")
    assert ids(got) == ["engine-server-error-500"] and got[0]["count"] == 4


def test_no_match_says_first_error_line_as_7_1_does(tmp_path):
    log = tmp_path / "plain.log"
    # a Miles log (one step line) with no symptom: a file with no Miles line at all is refused instead (exit 1)
    log.write_text("(TrainRayActor pid=1) [2026-01-01 00:00:00.000 x] log_utils.py:542 - step 0: "
                   "{'train/loss': 0.5, 'train/grad_norm': 0.3, 'train/step': 0}\nnothing here\n")
    res = in_process(rr.main, str(log), "--diagnose")
    assert "first error line, not its last" in res.stdout
    page = (ROOT / "sections" / "7-1-troubleshoot-by-symptom.md").read_text(encoding="utf-8")
    closing = page[page.index("## When nothing here matches"):]
    assert "the first error line, not the last" in closing
    assert doctor_rules.rules(ROOT)["no_match"] == rr.NO_MATCH  # the page's doctor says the same


def test_page_lists_each_entrys_causes_in_the_data_order():
    data = symptoms.load()
    page = (ROOT / data["page"]).read_text(encoding="utf-8")
    assert symptoms.check_page(page, data) == []
    s = next(x for x in data["symptoms"] if x["id"] == "engine-no-available-workers")
    broken = page.replace("3. An engine died during rollout", "An engine died during rollout", 1)
    assert any("causes" in e for e in symptoms.check_page(broken, data)), s["id"]
