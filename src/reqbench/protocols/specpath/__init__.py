"""specpath (SpecPath): one final contract, many contract-equivalent histories (direct, duplicate, split,
override, cancellation, controls); calibrated verifiers; probe signatures; FCR and CPV statistics.
Entry: `suite.PROTOCOL`; family format in `models`."""
