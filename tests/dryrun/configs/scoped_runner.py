# The fixed seed-001 config naming MMEngine's own Runner with its registry scope.
_base_ = ['./fixed_t20_gcu_8card.py']

runner_type = 'mmengine.Runner'
