"""Cross-check of the computed trainer sizes (computed.json) on a real accelerator.

For each model of capture/miles/models.json that transformers implements and whose trainer state
fits the device, ``python3 -m capture.crosscheck`` builds the model from its extracted shape with
random weights, sets it up as Miles's FSDP backend does, runs two optimizer steps at a stated token
count and records what PyTorch's allocator holds -- one subprocess per model and setting, so that
memory from an earlier model never corrupts a reading. One JSON per host lands in
capture/crosscheck/results/<host>.json (schema _ext/miles101/schema/crosscheck.schema.json);
``capture.crosscheck.verify.verify`` (the rule of ``miles101.crosscheck_results``) holds it against computed.json.

Modules: ``miles_fsdp`` (Miles's FSDP settings with their sites), ``shapes`` (models.json record ->
transformers config), ``measure`` (one model in one process), ``driver`` (the host run), ``verify``.
Only ``verify`` and ``miles_fsdp`` import without torch.
"""
SCHEMA = "crosscheck/1"
