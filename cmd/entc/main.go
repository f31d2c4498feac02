// Command entc generates the ent client and the GraphQL schema of the ent
// types (ent.graphql) from ent/schema. Run through `go generate ./...`.
package main

import (
	"log"
	"os"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
)

func main() {
	ex, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithSchemaPath("ent.graphql"),
		entgql.WithConfigPath("gqlgen.yml"),
		entgql.WithWhereInputs(true),
	)
	if err != nil {
		log.Fatalf("entgql extension: %v", err)
	}
	cfg := &gen.Config{
		Target:  "./ent",
		Package: "switchboard/ent",
		Features: []gen.Feature{
			gen.FeaturePrivacy,
			gen.FeatureEntQL,
			gen.FeatureUpsert,
			gen.FeatureIntercept,
			gen.FeatureVersionedMigration,
			gen.FeatureLock,
			gen.FeatureModifier,
			gen.FeatureExecQuery,
		},
	}
	if err := entc.Generate(schemaDir(), cfg, entc.Extensions(ex)); err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}

func schemaDir() string {
	if d := os.Getenv("ENTC_SCHEMA_DIR"); d != "" {
		return d
	}
	return "./ent/schema"
}
