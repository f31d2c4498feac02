// Package model holds the GraphQL input and payload types that gqlgen
// generates from schema.graphql.
package model
