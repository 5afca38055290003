"""The negotiation benchmark: a synthetic pool (`pool`) and timed cycles over it (`run`)."""
