package ivr

import (
	"slices"
	"unicode/utf8"
)

// Parse reads an IVR flow's menu object and checks its structure: the
// peer web UI's form {version: 2, entry_node, nodes, edges} or a bare
// {nodes} (entry = first node; each node leads to the next one in array
// order for every outcome it has). It checks unique node ids, known types,
// each type's config (JSON types, ranges, no unknown keys), edges between
// existing nodes whose condition is an outcome of the source node (one
// edge per outcome), and that every node is reachable from the entry.
// Lookups (teams, agents, flows, audio files) are Validate's.
// Errors: invalid, naming the node and field at fault.
func Parse(menu map[string]any) (*Graph, error) {
	if menu == nil {
		return nil, graphErr("nodes is required")
	}
	g := &Graph{Version: Version, byID: map[string]*Node{}, next: map[edgeKey]string{}}
	if err := parseVersion(menu["version"]); err != nil {
		return nil, err
	}
	if err := g.parseNodes(menu["nodes"]); err != nil {
		return nil, err
	}
	if err := g.parseEntry(menu["entry_node"]); err != nil {
		return nil, err
	}
	rawEdges, hasEdges := menu["edges"]
	if !hasEdges || rawEdges == nil {
		g.implicitEdges()
	} else if err := g.parseEdges(rawEdges); err != nil {
		return nil, err
	}
	if err := g.checkReachable(); err != nil {
		return nil, err
	}
	return g, nil
}

func parseVersion(v any) error {
	if v == nil {
		return nil
	}
	n, ok := number(v)
	if !ok || n != Version {
		return graphErr("version must be %d", Version)
	}
	return nil
}

func (g *Graph) parseNodes(v any) error {
	list, ok := v.([]any)
	if !ok {
		if v == nil {
			return graphErr("nodes is required")
		}
		return graphErr("nodes must be an array")
	}
	switch {
	case len(list) == 0:
		return graphErr("nodes must have at least one node")
	case len(list) > MaxNodes:
		return graphErr("nodes: at most %d nodes", MaxNodes)
	}
	for i, item := range list {
		n, err := parseNode(i, item)
		if err != nil {
			return err
		}
		if g.byID[n.ID] != nil {
			return nodeErr(n.ID, "id: used by two nodes")
		}
		g.byID[n.ID] = n
		g.Nodes = append(g.Nodes, n)
	}
	return nil
}

// parseNode reads one node. Keys other than id, type, label and config
// (such as the builder's position) are left alone.
func parseNode(i int, item any) (*Node, error) {
	obj, ok := item.(map[string]any)
	if !ok {
		return nil, graphErr("nodes[%d] must be an object", i)
	}
	id, ok := obj["id"].(string)
	switch {
	case !ok || id == "":
		return nil, graphErr("nodes[%d]: id must be a non-empty string", i)
	case len(id) > MaxNodeIDLength:
		return nil, graphErr("nodes[%d]: id must be at most %d characters", i, MaxNodeIDLength)
	case !utf8.ValidString(id):
		return nil, graphErr("nodes[%d]: id must be valid UTF-8", i)
	}
	n := &Node{ID: id}
	typ, ok := obj["type"].(string)
	if !ok || !slices.Contains(NodeTypes, typ) {
		return nil, nodeErr(id, "type must be one of %s", joinQuoted(NodeTypes))
	}
	n.Type = typ
	if l, present := obj["label"]; present && l != nil {
		label, ok := l.(string)
		if !ok || utf8.RuneCountInString(label) > MaxLabelLength {
			return nil, nodeErr(id, "label must be a string of at most %d characters", MaxLabelLength)
		}
		n.Label = label
	}
	cfg := map[string]any{}
	if c, present := obj["config"]; present && c != nil {
		if cfg, ok = c.(map[string]any); !ok {
			return nil, nodeErr(id, "config must be an object")
		}
	}
	if err := parseConfig(n, cfg); err != nil {
		return nil, err
	}
	return n, nil
}

func (g *Graph) parseEntry(v any) error {
	if v == nil || v == "" {
		g.EntryNode = g.Nodes[0].ID
		return nil
	}
	id, ok := v.(string)
	if !ok {
		return graphErr("entry_node must be a string")
	}
	if g.byID[id] == nil {
		return graphErr("entry_node %q is no node of the menu", id)
	}
	g.EntryNode = id
	return nil
}

// implicitEdges chains the nodes in array order: every outcome of a
// non-terminal node leads to the next node.
func (g *Graph) implicitEdges() {
	g.Implicit = true
	for i, n := range g.Nodes[:len(g.Nodes)-1] {
		if n.Type == NodeTransfer {
			continue // a transfer without edges ends the IVR
		}
		for _, o := range n.Outcomes() {
			g.addEdge(Edge{From: n.ID, To: g.Nodes[i+1].ID, Condition: o})
		}
	}
}

func (g *Graph) addEdge(e Edge) {
	g.Edges = append(g.Edges, e)
	g.next[edgeKey{e.From, e.Condition}] = e.To
}

func (g *Graph) parseEdges(v any) error {
	list, ok := v.([]any)
	if !ok {
		return graphErr("edges must be an array")
	}
	if len(list) > MaxEdges {
		return graphErr("edges: at most %d edges", MaxEdges)
	}
	for i, item := range list {
		e, err := g.parseEdge(i, item)
		if err != nil {
			return err
		}
		g.addEdge(e)
	}
	return nil
}

func (g *Graph) parseEdge(i int, item any) (Edge, error) {
	obj, ok := item.(map[string]any)
	if !ok {
		return Edge{}, graphErr("edges[%d] must be an object", i)
	}
	var e Edge
	for key, dst := range map[string]*string{"from": &e.From, "to": &e.To, "condition": &e.Condition} {
		if raw, present := obj[key]; present && raw != nil {
			s, ok := raw.(string)
			if !ok {
				return Edge{}, graphErr("edges[%d]: %s must be a string", i, key)
			}
			*dst = s
		}
	}
	from := g.byID[e.From]
	if from == nil {
		return Edge{}, graphErr("edges[%d]: from %q is no node of the menu", i, e.From)
	}
	if g.byID[e.To] == nil {
		return Edge{}, nodeErr(e.From, "edges[%d]: to %q is no node of the menu", i, e.To)
	}
	if e.Condition == "" {
		e.Condition = OutcomeDefault
	}
	outcomes := from.Outcomes()
	if len(outcomes) == 0 {
		return Edge{}, nodeErr(e.From, "edges[%d]: a %s node ends the IVR and has no outgoing edges", i, from.Type)
	}
	if !slices.Contains(outcomes, e.Condition) {
		return Edge{}, nodeErr(e.From, "edges[%d]: condition %q is not an outcome of a %s node (%s)", i, e.Condition, from.Type, joinQuoted(outcomes))
	}
	if _, dup := g.next[edgeKey{e.From, e.Condition}]; dup {
		return Edge{}, nodeErr(e.From, "edges[%d]: two edges handle the outcome %q", i, e.Condition)
	}
	return e, nil
}

// checkReachable refuses nodes no path from the entry reaches.
func (g *Graph) checkReachable() error {
	seen := map[string]bool{g.EntryNode: true}
	queue := []string{g.EntryNode}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, e := range g.Edges {
			if e.From == id && !seen[e.To] {
				seen[e.To] = true
				queue = append(queue, e.To)
			}
		}
	}
	for _, n := range g.Nodes {
		if !seen[n.ID] {
			return nodeErr(n.ID, "not reachable from the entry node %q", g.EntryNode)
		}
	}
	return nil
}
