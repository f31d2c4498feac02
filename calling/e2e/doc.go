// Package e2e holds the end-to-end test of calling: the built server runs
// as a process, and WebRTC peers playing the platform and an agent's
// browser carry audio through it over loopback. It has no code of its own.
package e2e
