"""The lab of Miles 101: extraction from Miles, derivation, recording, checking."""
