"""The probe: runs inside the target interpreter; imports only the standard library, numpy and torch."""
