package app

import (
	"context"
	"path/filepath"

	"switchboard/calling"
	"switchboard/calling/audio"
	callmedia "switchboard/calling/media"
	"switchboard/config"
	"switchboard/netguard"
	"switchboard/secrets"
)

// startCalls builds the call manager on the media engine and starts it:
// the platform's call events reach it through inbound, the API's call
// control through the resolver.
func (a *App) startCalls(cfg *config.Config, o Options, box *secrets.Box, audioStore *audio.Store) error {
	engine, err := callmedia.NewEngine(callmedia.Config{
		ListenAddrs: cfg.RTCListenAddrs, Interfaces: cfg.RTCInterfaces, PublicIP: cfg.RTCPublicIP,
		PortMin: uint16(cfg.RTCUDPPortMin), PortMax: uint16(cfg.RTCUDPPortMax), UDPPort: uint16(cfg.RTCUDPPort),
	})
	if err != nil {
		return err
	}
	a.Log.Info("calling media placed", "component", "calling", "gathers_on", engine.Placement())
	a.Calls = &calling.Manager{
		Client: a.DB.Client, Secrets: box, Provider: a.Resolver.Provider, Engine: engine, Audio: audioStore,
		Events: a.Events, Redis: a.KV.Client(), Prefix: o.Namespace, Log: a.Log.With("component", "calling"),
		Recordings: a.Resolver.Calling.Recordings, RecordingWork: filepath.Join(cfg.DataDir, "recordings-work"),
		Speech: audioStore.SpeechFile,
		HTTP: netguard.NewClient(netguard.Options{
			AllowPrivate: cfg.OutboundAllowPrivate, Timeout: calling.CallbackTimeout, MaxResponseBytes: 1 << 20,
		}),
	}
	a.Calls.Permissions = a.Resolver.Calling
	a.Inbound.Calls = a.Calls
	a.Resolver.Calls = a.Calls
	return a.Calls.Start(context.Background())
}
