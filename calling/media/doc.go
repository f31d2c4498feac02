// Package media is the WebRTC media engine of voice calls: it answers and
// makes pion PeerConnections ("legs"), plays Ogg/Opus files into them,
// bridges two legs by forwarding Opus RTP without transcoding, reports
// RFC 4733 DTMF digits, and records received audio to Ogg/Opus files.
//
// It only moves audio: it knows nothing of the database, HTTP, tenants or
// the platform. The call-control layer (package calling) drives it.
//
// DTMF: telephone-event packets are consumed by the leg that receives them
// (reported through LegOptions.OnDTMF) and never forwarded across a bridge;
// what a digit means is the call-control layer's business, and the receiving
// side of a bridge sees a clean audio stream (sequence numbers closed over
// the dropped events).
package media
