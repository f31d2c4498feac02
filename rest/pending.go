package rest

// Route groups whose handlers are being written; each moves to its
// resource file.
