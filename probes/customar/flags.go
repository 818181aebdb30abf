package customar

import "errors"

// CheckFlags checks the settings commlab probe custom-allreduce's flags
// gave (its errors name the flags), then Validate.
func (c Config) CheckFlags() error {
	if c.Iters <= 0 || c.Warmup < 0 || c.Timeout <= 0 || c.Ranks <= 0 {
		return errors.New("--ranks, --iters and --timeout must be positive, --warmup not negative")
	}
	return c.Validate()
}
