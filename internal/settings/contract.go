package settings

// ContractMode is what the final check against the target's contract
// (package contract) does with a sanitized transcript the target would
// refuse: the configuration's contract.mode, read by the contract stage.
type ContractMode string

// The contract modes; "" is read as ContractReject.
const (
	// ContractReject makes the job a dead letter "unsendable".
	ContractReject ContractMode = "reject"
	// ContractReport writes the payload and lists the violations under
	// report.contract.
	ContractReport ContractMode = "report"
)
