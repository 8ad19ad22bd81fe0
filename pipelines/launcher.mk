# launcher.mk — where the studies' simulations run (study.mk, rolling.mk; docs/studies.md,
# "Beyond one machine"). Every simulation recipe (sim-run, roll) starts with $(SIM_PREFIX):
# SIM_LAUNCHER empty runs it here; SIM_LAUNCHER=slurm sends each one to Slurm through srun
# (pipelines/slurm-sim.sh, srun options in SLURM_SIM_ARGS, e.g. '--partition=cpu
# --account=proj'); any other value is used as the prefix itself, e.g. 'srun -n1 --exclusive'.
SIM_LAUNCHER ?=
SIM_PREFIX := $(if $(filter slurm,$(SIM_LAUNCHER)),sh pipelines/slurm-sim.sh,$(SIM_LAUNCHER))
export SLURM_SIM_ARGS
