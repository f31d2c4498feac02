package provider

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
)

// Page is one page of a cursor-paged Graph API list; After is the cursor
// of the next page, "" on the last.
type Page[T any] struct {
	Items []T
	After string
}

// listPage reads one page of the edge at segments
// (GET /{segments...}?fields=&limit=&after=).
//
// The platform's list answer is {data, paging: {cursors: {before, after},
// next}}. The after cursor is present on the last page too; only next says
// that more follow, and a page may be empty yet have a next (the platform
// filters items after paging), so paging stops on a missing next alone.
func listPage[T any](ctx context.Context, c *Client, acc Account, fields, after string, limit int, segments ...string) (*Page[T], error) {
	q := url.Values{"fields": {fields}, "limit": {strconv.Itoa(limit)}}
	if after != "" {
		q.Set("after", after)
	}
	u, err := c.endpoint(acc, q, segments...)
	if err != nil {
		return nil, err
	}
	var a struct {
		Data   []T `json:"data"`
		Paging struct {
			Cursors struct {
				After string `json:"after"`
			} `json:"cursors"`
			Next string `json:"next"`
		} `json:"paging"`
	}
	if err := c.doJSON(ctx, acc, getRequest(u), &a); err != nil {
		return nil, err
	}
	page := &Page[T]{Items: a.Data}
	if a.Paging.Next != "" {
		page.After = a.Paging.Cursors.After
	}
	return page, nil
}

// ReadAll reads a cursor-paged list from its first page, passing each
// page's After to read to get the next, until a page has none. It reads
// at most maxPages pages, so that a server that never ends a list cannot
// keep the caller looping.
//
// Errors: read's error as is; ErrUnexpectedResponse when a cursor comes
// back a second time (the list would loop) or when more pages remain after
// maxPages.
func ReadAll[T any](maxPages int, read func(after string) (*Page[T], error)) ([]T, error) {
	var all []T
	seen := map[string]bool{"": true}
	after := ""
	for range maxPages {
		page, err := read(after)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.After == "" {
			return all, nil
		}
		if seen[page.After] {
			return nil, fmt.Errorf("%w: a list cursor came back a second time", ErrUnexpectedResponse)
		}
		seen[page.After] = true
		after = page.After
	}
	return nil, fmt.Errorf("%w: the list has more than %d pages", ErrUnexpectedResponse, maxPages)
}
