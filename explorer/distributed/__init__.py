"""Distributed jobs, rank by rank: every rank of a torchrun/DDP/FSDP job captured, merged, compared.

  env.py          who this process is in a job (torchrun's RANK, WORLD_SIZE, ...); where parts go
  rank.py         one rank: the script under capture, its part written, the merge by the last rank
  launch.py       ``explorer run --nproc-per-node N``: the ranks under torch.distributed.run, one report
  merge.py        parts -> one merged report (needs no torch); one rank's report back out of it
  compare.py      ranks compared: matched compilations, differences with user line and ranks, groups
  collectives.py  the collectives each graph issues, in order; where ranks would wait on each other
  ddp.py          DDPOptimizer's splits in words; DDP and FSDP2 explained where nothing split or showed
  text.py         DDP splits and notes in the text summary (the "ranks compared" section is present.ranks)
  model.py        the plain data of all of it (``Report.distributed``)
"""
