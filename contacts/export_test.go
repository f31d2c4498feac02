package contacts

// SetHourSearchSteps sets how many ranges a search walks until the test
// ends.
func SetHourSearchSteps(t interface{ Cleanup(func()) }, n int) {
	old := hourSearchSteps
	hourSearchSteps = n
	t.Cleanup(func() { hourSearchSteps = old })
}
