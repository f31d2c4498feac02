package accounts

import (
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"

	"switchboard/apperr"
	"switchboard/provider"
)

// graphID checks a platform object id; an empty one is allowed unless
// required.
func graphID(field, raw string, required bool) (string, error) {
	id := strings.TrimSpace(raw)
	switch {
	case id == "" && required:
		return "", apperr.Invalidf("%s is required", field)
	case id == "":
		return "", nil
	case len(id) > maxGraphID || !graphIDPattern.MatchString(id):
		return "", apperr.Invalidf("%s must be the platform's numeric id (digits only, without a leading zero, at most %d)", field, maxGraphID)
	}
	return id, nil
}

func apiVersion(raw string) (string, error) {
	v := strings.TrimSpace(raw)
	if !apiVersionPattern.MatchString(v) {
		return "", apperr.Invalidf("api_version must look like v21.0")
	}
	return v, nil
}

// profileUpdate validates a business profile change against the
// platform's documented limits.
func profileUpdate(in BusinessProfileInput) (provider.BusinessProfileUpdate, error) {
	var out provider.BusinessProfileUpdate
	if in.MessagingProduct == nil || *in.MessagingProduct != profileProduct {
		return out, apperr.Invalidf("messaging_product must be %q", profileProduct)
	}
	for _, f := range []struct {
		name  string
		val   *string
		limit int
	}{{"address", in.Address, maxProfileAddress}, {"description", in.Description, maxProfileDescription}} {
		if f.val != nil && utf8.RuneCountInString(*f.val) > f.limit {
			return out, apperr.Invalidf("%s must be at most %d characters", f.name, f.limit)
		}
	}
	if in.About != nil {
		n := utf8.RuneCountInString(*in.About)
		if strings.TrimSpace(*in.About) == "" || n > maxProfileAbout {
			return out, apperr.Invalidf("about must be 1 to %d characters", maxProfileAbout)
		}
	}
	if in.Email != nil && *in.Email != "" {
		e := strings.TrimSpace(*in.Email)
		addr, err := mail.ParseAddress(e)
		if err != nil || addr.Address != e || len(e) > maxProfileEmail {
			return out, apperr.Invalidf("email must be a valid email address of at most %d characters", maxProfileEmail)
		}
		in.Email = &e
	}
	if in.Vertical != nil && *in.Vertical != "" && !profileVerticals[*in.Vertical] {
		return out, apperr.Invalidf("vertical must be one of UNDEFINED, OTHER, AUTO, BEAUTY, APPAREL, EDU, ENTERTAIN, " +
			"EVENT_PLAN, FINANCE, GROCERY, GOVT, HOTEL, HEALTH, NONPROFIT, PROF_SERVICES, RETAIL, TRAVEL, RESTAURANT, NOT_A_BIZ")
	}
	if len(in.Websites) > provider.MaxProfileWebsites {
		return out, apperr.Invalidf("websites may list at most %d URLs", provider.MaxProfileWebsites)
	}
	websites := make([]string, 0, len(in.Websites))
	for _, w := range in.Websites {
		w = strings.TrimSpace(w)
		u, err := url.Parse(w)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(w) > maxProfileWebsite {
			return out, apperr.Invalidf("websites: %q must be an http:// or https:// URL of at most %d characters", w, maxProfileWebsite)
		}
		websites = append(websites, w)
	}
	if in.Websites != nil {
		out.Websites = websites
	}
	out.About, out.Address, out.Description, out.Email, out.Vertical = in.About, in.Address, in.Description, in.Email, in.Vertical
	return out, nil
}
