"""Statistics shared by protocols: intervals (bootstrap, binomial), agreement (kappa), pass@k."""
