package httpapi

// Unexported functions the external tests compare with encoding/json.
var (
	DecodeStrict     = decodeStrict
	DecodeStrictWalk = decodeStrictWalk
	StrictScan       = strictScan
)

// ErrorFields returns the fields an *apiError names, nil for any other
// error.
func ErrorFields(err error) []FieldProblem {
	if ae, ok := err.(*apiError); ok {
		return ae.fields
	}
	return nil
}
