package main

//go:generate go run ./cmd/entc
//go:generate go tool gqlgen generate
