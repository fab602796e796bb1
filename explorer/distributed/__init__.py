"""A distributed job's ranks as data and compared: what the report holds of a torchrun/DDP/FSDP job.

An analysis, under the report: ``Report.distributed`` (``report.Distributed``, each rank's whole report
in a ``report.RankRun``) holds what ``model`` defines, and nothing here imports the report or runs
anything. Launching the ranks, writing their parts and merging them is the job runner's,
``explorer.jobs``, beside the pipeline (the CLI's ``run --nproc-per-node`` and ``merge``).

  model.py        the plain data of what ranks did and how they differ (``Report.distributed``)
  compare.py      ranks compared: matched compilations, differences with user line and ranks, groups
  collectives.py  the collectives each graph issues, in order; where ranks would wait on each other
  ddp.py          DDPOptimizer's splits in words; DDP and FSDP2 explained where nothing split or showed
  diff.py         one compilation of one rank against the same of another (``diff_ranks``)
  text.py         DDP splits and notes in the text summary (the "ranks compared" section is present.ranks)
"""
