package rest

// Route groups whose handlers are being written; each moves to its
// resource file.
func (a *API) userRoutes() []Route         { return nil }
func (a *API) apiKeyRoutes() []Route       { return nil }
func (a *API) organizationRoutes() []Route { return nil }
func (a *API) settingsRoutes() []Route     { return nil }
func (a *API) roleRoutes() []Route         { return nil }
