package httpapi

// Unexported functions the external tests compare with encoding/json.
var (
	DecodeEpochFast = decodeEpochFast
	DecodeStrict    = decodeStrict
)
