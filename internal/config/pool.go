package config

// PoolSize is the job pool size on a machine with the given number of
// cores: Workers, or 2 x cores when Workers is 0.
func (p PipelineConfig) PoolSize(cores int) int {
	if p.Workers > 0 {
		return p.Workers
	}
	return 2 * max(cores, 1)
}
