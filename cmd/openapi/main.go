// Command openapi writes the REST API's generated OpenAPI 3.1 document
// to standard output, as JSON or (with -yaml) YAML: the document the
// server serves at /api/openapi.json, for tools that read a file
// (.ci/openapi-check).
package main

import (
	"flag"
	"fmt"
	"os"

	"switchboard/rest"
)

func main() {
	yaml := flag.Bool("yaml", false, "write YAML instead of JSON")
	flag.Parse()
	j, y, err := rest.BuildOpenAPI((&rest.API{}).Routes())
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
	out := j
	if *yaml {
		out = y
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
}
