// Package media is the WebRTC media engine of voice calls: it answers and
// makes pion PeerConnections ("legs"), plays Ogg/Opus files into them,
// bridges two legs by forwarding Opus RTP without transcoding, reports
// RFC 4733 DTMF digits, and records received audio to Ogg/Opus files.
//
// It only moves audio: it knows nothing of the database, HTTP, tenants or
// the platform. The call-control layer (package calling) drives it:
//
//	leg, answer, err := engine.Answer(ctx, platformOffer, media.LegOptions{OnDTMF: ..., OnClose: ...})
//	greeting, _ := media.OggFile(path, false)
//	<-leg.Play(greeting)               // waits for the leg to connect, then plays once
//	agent, agentAnswer, err := engine.Answer(ctx, browserOffer, media.LegOptions{...})
//	bridge := media.Bridge(leg, agent) // hold: leg.Play(music); agent.Stop(); resume: media.Bridge again
//	recA, _ := leg.Record(a); recB, _ := agent.Record(b)
//	...
//	leg.Close(); agent.Close()         // stops the bridge and the recordings
//	media.MixRecordings(ctx, out, a, b)
//
// Each leg sends one continuous RTP stream whatever feeds it (a file, the
// other leg, nothing): sequence numbers run on and timestamps advance with
// the wall clock across switches, the marker bit starting each new source.
//
// DTMF: telephone-event packets are consumed by the leg that receives them
// (reported through LegOptions.OnDTMF) and never forwarded across a bridge;
// what a digit means is the call-control layer's business, and the other
// side of a bridge gets a clean audio stream (sequence numbers closed over
// the dropped events). In-band (audio tone) DTMF is not detected: that needs
// an Opus decoder.
package media
