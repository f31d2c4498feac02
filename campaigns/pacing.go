package campaigns

import "switchboard/pacing"

// Limiter paces sends per platform phone number; the application gives
// the campaigns pacing's Redis limiter, shared by every node and every
// campaign of a number.
type Limiter = pacing.Limiter
