package config

import "math"

// budgetUSD checks a profile's budget_usd: a number of US dollars, 0 for
// none.
func (p *parser) budgetUSD(v any, key []string) (float64, error) {
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, p.errf(key, "%s is %s; write an amount in US dollars, such as 5 or 0.50 (0 for none)", keyString(key), typeName(v))
	}
	if f < 0 || math.IsNaN(f) || f > 1e9 {
		return 0, p.errf(key, "%s %v is not an amount in US dollars from 0 (none) up", keyString(key), v)
	}
	return f, nil
}

// maxTokens checks a profile's max_tokens: a whole number, 0 for none.
func (p *parser) maxTokens(v any, key []string) (int, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, p.errf(key, "%s is %s; write a whole number of tokens, such as 200000 (0 for none)", keyString(key), typeName(v))
	}
	if n < 0 || n > math.MaxInt32 {
		return 0, p.errf(key, "%s %d is not a count of tokens from 0 (none) to %d", keyString(key), n, math.MaxInt32)
	}
	return int(n), nil
}
