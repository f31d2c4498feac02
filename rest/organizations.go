package rest

import (
	"time"

	"github.com/google/uuid"

	"switchboard/ent"
)

type organizationJSON struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
}

func presentOrganization(o *ent.Organization) organizationJSON {
	return organizationJSON{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt}
}
