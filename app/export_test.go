package app

// LongTransfers exposes longTransfers to the external tests.
var LongTransfers = longTransfers
