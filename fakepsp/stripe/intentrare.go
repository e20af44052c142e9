package stripe

// intentRare are the fields most intents never set: kept apart, so an
// intent without them (a soak's thousands) does not carry their room.
type intentRare struct {
	description, customer, cancelReason string
	lastError                           *Error
}

func (pi *Intent) rareFields() *intentRare {
	if pi.rare == nil {
		pi.rare = &intentRare{}
	}
	return pi.rare
}

func (pi *Intent) description() string {
	if pi.rare == nil {
		return ""
	}
	return pi.rare.description
}

func (pi *Intent) customer() string {
	if pi.rare == nil {
		return ""
	}
	return pi.rare.customer
}

func (pi *Intent) cancelReason() string {
	if pi.rare == nil {
		return ""
	}
	return pi.rare.cancelReason
}

func (pi *Intent) lastError() *Error {
	if pi.rare == nil {
		return nil
	}
	return pi.rare.lastError
}

// setDescription, setCustomer, setCancelReason and setLastError set a
// rare field; setting the zero value on an intent without any keeps none.
func (pi *Intent) setDescription(s string) {
	if s != "" || pi.rare != nil {
		pi.rareFields().description = s
	}
}

func (pi *Intent) setCustomer(s string) {
	if s != "" || pi.rare != nil {
		pi.rareFields().customer = s
	}
}

func (pi *Intent) setCancelReason(s string) {
	if s != "" || pi.rare != nil {
		pi.rareFields().cancelReason = s
	}
}

func (pi *Intent) setLastError(e *Error) {
	if e != nil || pi.rare != nil {
		pi.rareFields().lastError = e
	}
}
