package graph

import "switchboard/events"

// The /ws frames of call logs and call transfers the subscriptions follow.
var (
	callLogFrames = []string{events.FrameCallIncoming, events.FrameCallAnswered, events.FrameCallEnded,
		events.FrameCallHold, events.FrameCallResumed, events.FrameOutgoingCallRinging,
		events.FrameOutgoingCallAnswered, events.FrameOutgoingCallRejected}
	callTransferFrames = []string{events.FrameCallTransferWaiting, events.FrameCallTransferConnected,
		events.FrameCallTransferCompleted, events.FrameCallTransferAbandoned, events.FrameCallTransferNoAnswer}
)

// done answers true for an operation that succeeded.
func done(err error) (bool, error) { return err == nil, err }
