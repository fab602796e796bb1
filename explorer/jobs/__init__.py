"""The job runner: a distributed job's ranks launched, each captured into a part, the parts merged.

It sits beside the pipeline (it runs the script as a target and builds reports), above the
report, and only the CLI calls it (``run --nproc-per-node N``, a rank under ``torchrun -m
explorer run``, ``merge``). What a merged report holds and how ranks are compared is
``explorer.distributed``, under the report.

  env.py          who this process is in a job (torchrun's RANK, WORLD_SIZE, ...); where parts go
  rank.py         one rank: the script under capture, its part written, the merge by the rank that claims it
  launch.py       ``explorer run --nproc-per-node N``: the ranks under torch.distributed.run, one report
  merge.py        parts -> one merged report (needs no torch)
"""
