package rest

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"switchboard/apikeys"
	"switchboard/auth"
	"switchboard/calling"
	"switchboard/campaigns"
	"switchboard/canned"
	"switchboard/catalogs"
	"switchboard/contacts"
	"switchboard/notes"
	"switchboard/people"
	"switchboard/provider"
	"switchboard/settings"
	"switchboard/templates"
	"switchboard/transfers"
)

// bodyField is the struct field at path (field names, dotted; a slice
// steps into its elements) of typ.
func bodyField(t *testing.T, typ any, path string) reflect.StructField {
	t.Helper()
	rt := reflect.TypeOf(typ)
	var f reflect.StructField
	for _, name := range strings.Split(path, ".") {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		var ok bool
		if f, ok = rt.FieldByName(name); !ok {
			t.Fatalf("%T has no field %s", typ, path)
		}
		rt = f.Type
	}
	return f
}

// TestBodyTagsMatchTheDomain: the bounds a request body declares in the
// OpenAPI document are the bounds its operation checks, the domain's
// constants (issue 32, point 1; TestRequestSchemasAgreeWithValidation
// checks that the server refuses what they exclude and accepts them).
func TestBodyTagsMatchTheDomain(t *testing.T) {
	n := strconv.Itoa
	for _, tc := range []struct {
		typ       any
		field     string
		tag, want string
	}{
		{createAPIKeyBody{}, "Name", "maxLength", n(apikeys.MaxNameLength)},
		{registerBody{}, "Password", "minLength", n(auth.MinPasswordChars)},
		{changePasswordBody{}, "NewPassword", "minLength", n(auth.MinPasswordChars)},
		{createUserBody{}, "Password", "minLength", n(auth.MinPasswordChars)},
		{updateUserBody{}, "Password", "minLength", n(auth.MinPasswordChars)},
		{updateUserBody{}, "FullName", "maxLength", n(people.MaxFullNameLength)},
		{updateBusinessProfileBody{}, "Websites", "maxItems", n(provider.MaxProfileWebsites)},
		{createIVRFlowBody{}, "Name", "maxLength", n(calling.MaxFlowNameLength)},
		{updateIVRFlowBody{}, "Name", "maxLength", n(calling.MaxFlowNameLength)},
		{createIVRFlowBody{}, "Description", "maxLength", n(calling.MaxFlowDescriptionLength)},
		{updateIVRFlowBody{}, "Description", "maxLength", n(calling.MaxFlowDescriptionLength)},
		{createIVRFlowBody{}, "WelcomeAudioURL", "maxLength", n(calling.MaxWelcomeAudioLength)},
		{updateIVRFlowBody{}, "WelcomeAudioURL", "maxLength", n(calling.MaxWelcomeAudioLength)},
		{createCampaignBody{}, "Name", "maxLength", n(campaigns.MaxNameLength)},
		{updateCampaignBody{}, "Name", "maxLength", n(campaigns.MaxNameLength)},
		{createCampaignBody{}, "ChatAccount", "maxLength", n(campaigns.MaxNameLength)},
		{updateCampaignBody{}, "ChatAccount", "maxLength", n(campaigns.MaxNameLength)},
		{importBody{}, "Recipients", "maxItems", n(campaigns.MaxImport)},
		{createCannedBody{}, "Name", "maxLength", n(canned.MaxName)},
		{updateCannedBody{}, "Name", "maxLength", n(canned.MaxName)},
		{createCannedBody{}, "Content", "maxLength", n(canned.MaxContent)},
		{updateCannedBody{}, "Content", "maxLength", n(canned.MaxContent)},
		{createCannedBody{}, "Shortcut", "maxLength", n(canned.MaxShortcut)},
		{updateCannedBody{}, "Shortcut", "maxLength", n(canned.MaxShortcut)},
		{createCannedBody{}, "Category", "maxLength", n(canned.MaxCategory)},
		{updateCannedBody{}, "Category", "maxLength", n(canned.MaxCategory)},
		{createCannedBody{}, "Buttons", "maxItems", n(canned.MaxButtons)},
		{updateCannedBody{}, "Buttons", "maxItems", n(canned.MaxButtons)},
		{cannedButtonBody{}, "ID", "maxLength", n(canned.MaxButtonID)},
		{cannedButtonBody{}, "Title", "maxLength", n(canned.MaxButtonTitle)},
		{createCatalogBody{}, "Name", "maxLength", n(catalogs.MaxNameLength)},
		{createCatalogBody{}, "ChatAccount", "maxLength", n(catalogs.MaxNameLength)},
		{syncCatalogsBody{}, "ChatAccount", "maxLength", n(catalogs.MaxNameLength)},
		{createProductBody{}, "Name", "maxLength", n(catalogs.MaxNameLength)},
		{updateProductBody{}, "Name", "maxLength", n(catalogs.MaxNameLength)},
		{createProductBody{}, "Description", "maxLength", n(catalogs.MaxDescriptionLength)},
		{updateProductBody{}, "Description", "maxLength", n(catalogs.MaxDescriptionLength)},
		{createProductBody{}, "URL", "maxLength", n(catalogs.MaxURLLength)},
		{updateProductBody{}, "ImageURL", "maxLength", n(catalogs.MaxURLLength)},
		{createProductBody{}, "RetailerID", "maxLength", n(catalogs.MaxRetailerIDLength)},
		{updateProductBody{}, "RetailerID", "maxLength", n(catalogs.MaxRetailerIDLength)},
		{sendProductListBody{}, "Sections", "maxItems", n(provider.MaxProductSections)},
		{createContactBody{}, "ProfileName", "maxLength", n(contacts.MaxFieldLength)},
		{createContactBody{}, "ChatAccount", "maxLength", n(contacts.MaxFieldLength)},
		{updateContactBody{}, "ProfileName", "maxLength", n(contacts.MaxFieldLength)},
		{updateContactBody{}, "ChatAccount", "maxLength", n(contacts.MaxFieldLength)},
		{noteBody{}, "Content", "maxLength", n(notes.MaxContentLength)},
		{updateOrgSettingsBody{}, "Name", "maxLength", n(settings.MaxOrgName)},
		{updateOrgSettingsBody{}, "DateFormat", "maxLength", n(settings.MaxDateFormat)},
		{updateOrgSettingsBody{}, "MaxCallDuration", "maximum", n(settings.MaxCallDurationSecs)},
		{updateOrgSettingsBody{}, "TransferTimeoutSecs", "maximum", n(settings.MaxTransferTimeoutSecs)},
		{templateDraftBody{}, "Name", "maxLength", n(templates.MaxNameLength)},
		{templateDraftBody{}, "Language", "maxLength", n(templates.MaxLanguageLength)},
		{templateDraftBody{}, "DisplayName", "maxLength", n(templates.MaxDisplayName)},
		{templateDraftBody{}, "BodyContent", "maxLength", n(templates.MaxBodyText)},
		{templateDraftBody{}, "FooterContent", "maxLength", n(templates.MaxFooterText)},
		{templateDraftBody{}, "HeaderContent", "maxLength", n(templates.MaxHeaderHandle)},
		{templateDraftBody{}, "Buttons", "maxItems", n(templates.MaxButtons)},
		{templateDraftBody{}, "CodeExpirationMinutes", "minimum", n(templates.MinCodeExpiration)},
		{templateDraftBody{}, "CodeExpirationMinutes", "maximum", n(templates.MaxCodeExpiration)},
		{transferBody{}, "Notes", "maxLength", n(transfers.MaxNotesLength)},
		{transferBody{}, "ChatAccount", "maxLength", n(transfers.MaxChatAccountLength)},
		{transferBody{}, "Source", "maxLength", n(transfers.MaxSourceLength)},
	} {
		f := bodyField(t, tc.typ, tc.field)
		if got := f.Tag.Get(tc.tag); got != tc.want {
			t.Errorf("%T.%s: %s %q, the domain's is %s", tc.typ, tc.field, tc.tag, got, tc.want)
		}
	}
}
