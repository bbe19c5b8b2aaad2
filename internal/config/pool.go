package config

// PoolSize is the job pool size on a machine with the given number of
// cores: Workers, or 2 x cores when Workers is 0.
func (p PipelineConfig) PoolSize(cores int) int {
	if p.Workers > 0 {
		return p.Workers
	}
	return 2 * max(cores, 1)
}

// FanoutPoolSize is the number of helpers that split large histories on a
// machine with the given number of cores: FanoutWorkers, or cores - 1 when
// it is 0 (each job's own goroutine runs chunks too, so a job alone uses
// every core; one core means no helper and no split).
func (p PipelineConfig) FanoutPoolSize(cores int) int {
	if p.FanoutWorkers > 0 {
		return p.FanoutWorkers
	}
	return max(cores-1, 0)
}
