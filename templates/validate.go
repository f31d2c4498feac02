package templates

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"switchboard/apperr"
	"switchboard/ent/template"
	"switchboard/internal/valid"
)

// The platform's documented limits of a template's parts.
const (
	MaxNameLength        = 512
	MaxLanguageLength    = 15
	MaxDisplayName       = 512
	MaxHeaderText        = 60
	MaxBodyText          = 1024
	MaxFooterText        = 60
	MaxButtons           = 10
	MaxURLButtons        = 2
	MaxPhoneButtons      = 1
	MaxCopyCodeButtons   = 1
	MaxButtonText        = 25
	MaxButtonURL         = 2000
	MaxPhoneNumber       = 20
	MaxCopyCodeExample   = 15
	MaxSampleValue       = 1024
	MaxBodyVariables     = 100
	MaxHeaderHandle      = 4096
	MinCodeExpiration    = 1
	MaxCodeExpiration    = 90
	defaultOTPButtonText = "Copy code"
)

// Input is a template draft as created or replaced (PUT has the same
// structure). Nil pointers take their defaults.
type Input struct {
	ChatAccount               string
	Name                      string
	DisplayName               *string
	Language                  string
	Category                  string
	HeaderType                *string
	HeaderContent             string
	BodyContent               string
	FooterContent             string
	Buttons                   []map[string]any
	SampleValues              []string
	AddSecurityRecommendation bool
	CodeExpirationMinutes     *int
}

// draft is a validated Input.
type draft struct {
	account, name, displayName, language string
	category                             template.Category
	headerType                           template.HeaderType
	header, body, footer                 string
	buttons                              []map[string]any
	samples                              []string
	securityRecommendation               bool
	codeExpiration                       *int
}

var (
	nameRE     = regexp.MustCompile(`^[a-z0-9_]+$`)
	languageRE = regexp.MustCompile(`^[a-z]{2,3}(_[A-Za-z]{2,4})?$`)
	// anyBracesRE finds every {{...}} so that malformed variables are
	// reported instead of being sent as text.
	anyBracesRE = regexp.MustCompile(`\{\{[^{}]*\}\}`)
	namedVarRE  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// validate checks in against the platform's rules and returns the draft
// to store. Errors: invalid, naming the field and the rule.
func validate(in Input) (*draft, error) {
	d := &draft{securityRecommendation: in.AddSecurityRecommendation}
	var err error
	if d.account, err = valid.RequiredText("chat_account", in.ChatAccount, 200); err != nil {
		return nil, err
	}
	if d.name, err = valid.RequiredText("name", in.Name, MaxNameLength); err != nil {
		return nil, err
	}
	if !nameRE.MatchString(d.name) {
		return nil, apperr.Invalidf("name must contain only lowercase letters, digits and underscores (like order_update_2)")
	}
	d.displayName = d.name
	if in.DisplayName != nil {
		if v, err := valid.Text("display_name", *in.DisplayName, MaxDisplayName); err != nil {
			return nil, err
		} else if v != "" {
			d.displayName = v
		}
	}
	d.language = strings.TrimSpace(in.Language)
	switch {
	case d.language == "":
		return nil, apperr.Invalidf("language is required")
	case len(d.language) > MaxLanguageLength || !languageRE.MatchString(d.language):
		return nil, apperr.Invalidf("language must be a language code such as en or en_US")
	}
	switch c := template.Category(strings.ToUpper(strings.TrimSpace(in.Category))); c {
	case "":
		return nil, apperr.Invalidf("category is required")
	case template.CategoryMARKETING, template.CategoryUTILITY, template.CategoryAUTHENTICATION:
		d.category = c
	default:
		return nil, apperr.Invalidf("category must be MARKETING, UTILITY or AUTHENTICATION")
	}
	d.headerType = template.HeaderTypeNONE
	if in.HeaderType != nil && strings.TrimSpace(*in.HeaderType) != "" {
		d.headerType = template.HeaderType(strings.ToUpper(strings.TrimSpace(*in.HeaderType)))
		if err := template.HeaderTypeValidator(d.headerType); err != nil {
			return nil, apperr.Invalidf("header_type must be TEXT, IMAGE, VIDEO, DOCUMENT or NONE")
		}
	}
	if d.body, err = valid.Text("body_content", in.BodyContent, MaxBodyText); err != nil {
		return nil, err
	}
	if d.footer, err = valid.Text("footer_content", in.FooterContent, MaxFooterText); err != nil {
		return nil, err
	}
	if err := d.checkHeader(in.HeaderContent); err != nil {
		return nil, err
	}
	if d.category == template.CategoryAUTHENTICATION {
		err = d.checkAuthentication(in)
	} else {
		err = d.checkStandard(in)
	}
	if err != nil {
		return nil, err
	}
	return d, d.checkSamples(in.SampleValues)
}

func (d *draft) checkHeader(raw string) error {
	var err error
	switch d.headerType {
	case template.HeaderTypeNONE:
		if strings.TrimSpace(raw) != "" {
			return apperr.Invalidf("header_content must be empty when header_type is NONE")
		}
	case template.HeaderTypeTEXT:
		if d.header, err = valid.Text("header_content", raw, MaxHeaderText); err != nil {
			return err
		}
		if d.header == "" {
			return apperr.Invalidf("header_content (the header text) is required for a TEXT header")
		}
		vars, err := variablesOf("header_content", d.header)
		if err != nil {
			return err
		}
		if len(vars) > 1 {
			return apperr.Invalidf("header_content has %d variables; a TEXT header takes at most 1", len(vars))
		}
		if len(vars) == 1 && vars[0] != "1" && !namedVarRE.MatchString(vars[0]) {
			return apperr.Invalidf("the TEXT header's variable must be {{1}}")
		}
	default:
		// A media header's content is the sample's handle from
		// upload-media; it may be given later, before publishing.
		if d.header, err = valid.Text("header_content", raw, MaxHeaderHandle); err != nil {
			return err
		}
	}
	return nil
}

func (d *draft) checkStandard(in Input) error {
	if d.body == "" {
		return apperr.Invalidf("body_content is required")
	}
	if _, err := variablesOf("body_content", d.body); err != nil {
		return err
	}
	if in.AddSecurityRecommendation {
		return apperr.Invalidf("add_security_recommendation applies to AUTHENTICATION templates only")
	}
	if in.CodeExpirationMinutes != nil {
		return apperr.Invalidf("code_expiration_minutes applies to AUTHENTICATION templates only")
	}
	if templateHasVariable(d.footer) {
		return apperr.Invalidf("footer_content cannot contain variables")
	}
	buttons, err := checkButtons(in.Buttons)
	d.buttons = buttons
	return err
}

// checkAuthentication applies the rules of AUTHENTICATION templates: the
// platform writes their text itself (a body is optional and kept only for
// the preview), their header is NONE, their one button is the OTP button.
func (d *draft) checkAuthentication(in Input) error {
	if d.headerType != template.HeaderTypeNONE {
		return apperr.Invalidf("AUTHENTICATION templates take no header (header_type NONE)")
	}
	if d.footer != "" {
		return apperr.Invalidf("AUTHENTICATION templates take no footer_content: the platform writes it from code_expiration_minutes")
	}
	if d.body != "" {
		if _, err := variablesOf("body_content", d.body); err != nil {
			return err
		}
	}
	if m := in.CodeExpirationMinutes; m != nil {
		if *m < MinCodeExpiration || *m > MaxCodeExpiration {
			return apperr.Invalidf("code_expiration_minutes must be between %d and %d", MinCodeExpiration, MaxCodeExpiration)
		}
		v := *m
		d.codeExpiration = &v
	}
	otp := map[string]any{"type": ButtonOTP, "otp_type": "COPY_CODE", "text": defaultOTPButtonText}
	switch len(in.Buttons) {
	case 0:
	case 1:
		b := in.Buttons[0]
		typ := strings.ToUpper(str(b, "type"))
		if typ != ButtonOTP && typ != ButtonCopyCode {
			return apperr.Invalidf("AUTHENTICATION templates take one OTP button, not %s", displayType(typ))
		}
		if ot := strings.ToUpper(str(b, "otp_type")); ot != "" && ot != "COPY_CODE" {
			return apperr.Invalidf("buttons[0].otp_type must be COPY_CODE (one-tap and zero-tap need an Android app, which is not supported)")
		}
		if t, err := valid.Text("buttons[0].text", str(b, "text"), MaxButtonText); err != nil {
			return err
		} else if t != "" {
			otp["text"] = t
		}
	default:
		return apperr.Invalidf("AUTHENTICATION templates take exactly one OTP button, not %d buttons", len(in.Buttons))
	}
	d.buttons = []map[string]any{otp}
	return nil
}

func displayType(t string) string {
	if t == "" {
		return "a button without type"
	}
	return t
}

func str(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// checkButtons applies the platform's button rules: at most 10 buttons,
// at most 2 URL buttons, 1 phone number button and 1 copy code button;
// quick replies grouped together (not between other buttons); texts of
// at most 25 characters; a URL button's URL absolute http(s) with at most
// one variable, {{1}}, at its end.
func checkButtons(raw []map[string]any) ([]map[string]any, error) {
	if len(raw) > MaxButtons {
		return nil, apperr.Invalidf("a template has at most %d buttons, not %d", MaxButtons, len(raw))
	}
	counts := map[string]int{}
	out := make([]map[string]any, 0, len(raw))
	var kinds []bool // quick reply or not, in order
	for i, b := range raw {
		f := fmt.Sprintf("buttons[%d]", i)
		typ := strings.ToUpper(strings.TrimSpace(str(b, "type")))
		label, err := valid.Text(f+".text", str(b, "text"), MaxButtonText)
		if err != nil {
			return nil, err
		}
		if label == "" && typ != ButtonCopyCode {
			return nil, apperr.Invalidf("%s.text is required", f)
		}
		if templateHasVariable(label) {
			return nil, apperr.Invalidf("%s.text cannot contain variables", f)
		}
		nb := map[string]any{"type": typ, "text": label}
		switch typ {
		case ButtonQuickReply:
		case ButtonURL:
			u, err := valid.Text(f+".url", str(b, "url"), MaxButtonURL)
			if err != nil {
				return nil, err
			}
			if err := checkButtonURL(f, u); err != nil {
				return nil, err
			}
			nb["url"] = u
			if ex, err := valid.Text(f+".example", str(b, "example"), MaxButtonURL); err != nil {
				return nil, err
			} else if ex != "" {
				nb["example"] = ex
			}
		case ButtonPhoneNumber:
			p := strings.TrimSpace(str(b, "phone_number"))
			if !regexp.MustCompile(`^\+?[0-9]{7,15}$`).MatchString(p) || len(p) > MaxPhoneNumber {
				return nil, apperr.Invalidf("%s.phone_number must be a phone number in international format (+15551234567)", f)
			}
			nb["phone_number"] = p
		case ButtonCopyCode:
			ex, err := valid.Text(f+".example", str(b, "example"), MaxCopyCodeExample)
			if err != nil {
				return nil, err
			}
			if ex == "" {
				return nil, apperr.Invalidf("%s.example (the sample code, at most %d characters) is required for a COPY_CODE button", f, MaxCopyCodeExample)
			}
			nb["example"] = ex
			delete(nb, "text")
		case ButtonOTP:
			return nil, apperr.Invalidf("%s: OTP buttons belong to AUTHENTICATION templates", f)
		case "":
			return nil, apperr.Invalidf("%s.type is required (QUICK_REPLY, URL, PHONE_NUMBER or COPY_CODE)", f)
		default:
			return nil, apperr.Invalidf("%s.type must be QUICK_REPLY, URL, PHONE_NUMBER or COPY_CODE, not %q", f, typ)
		}
		counts[typ]++
		kinds = append(kinds, typ == ButtonQuickReply)
		out = append(out, nb)
	}
	for typ, max := range map[string]int{ButtonURL: MaxURLButtons, ButtonPhoneNumber: MaxPhoneButtons, ButtonCopyCode: MaxCopyCodeButtons} {
		if counts[typ] > max {
			return nil, apperr.Invalidf("a template has at most %d %s button(s), not %d", max, typ, counts[typ])
		}
	}
	changes := 0
	for i := 1; i < len(kinds); i++ {
		if kinds[i] != kinds[i-1] {
			changes++
		}
	}
	if changes > 1 {
		return nil, apperr.Invalidf("QUICK_REPLY buttons must be grouped together, before or after the other buttons")
	}
	return out, nil
}

func checkButtonURL(f, u string) error {
	switch {
	case u == "":
		return apperr.Invalidf("%s.url is required for a URL button", f)
	case !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://"):
		return apperr.Invalidf("%s.url must be an absolute http or https URL", f)
	}
	all := anyBracesRE.FindAllString(u, -1)
	switch {
	case len(all) > 1:
		return apperr.Invalidf("%s.url has %d variables; a URL button takes at most 1", f, len(all))
	case len(all) == 1 && (all[0] != "{{1}}" || !strings.HasSuffix(u, "{{1}}")):
		return apperr.Invalidf("%s.url: the variable must be {{1}} at the end of the URL", f)
	}
	return nil
}

func templateHasVariable(s string) bool { return anyBracesRE.MatchString(s) }

// variablesOf returns the variables of text, checking that they are
// either positional {{1}}..{{n}} (consecutive, each number used) or
// named ({{first_name}}: lowercase letters, digits and underscores), not
// both, and that the text neither starts nor ends with one (the
// platform refuses that).
func variablesOf(field, s string) ([]string, error) {
	all := anyBracesRE.FindAllString(s, -1)
	var vars []string
	positional, named := 0, 0
	for _, raw := range all {
		name := strings.TrimSpace(raw[2 : len(raw)-2])
		switch {
		case isDigits(name):
			positional++
		case namedVarRE.MatchString(name):
			named++
		default:
			return nil, apperr.Invalidf("%s: %s is not a variable; use {{1}}, {{2}}, ... or a lowercase name like {{first_name}}", field, raw)
		}
		if !slices.Contains(vars, name) {
			vars = append(vars, name)
		}
	}
	if positional > 0 && named > 0 {
		return nil, apperr.Invalidf("%s mixes numbered and named variables; use one kind", field)
	}
	if len(vars) > MaxBodyVariables {
		return nil, apperr.Invalidf("%s has more than %d variables", field, MaxBodyVariables)
	}
	if positional > 0 {
		nums := make([]int, 0, len(vars))
		for _, v := range vars {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxBodyVariables {
				return nil, apperr.Invalidf("%s: variable {{%s}} is out of range", field, v)
			}
			nums = append(nums, n)
		}
		slices.Sort(nums)
		for i, n := range nums {
			if n != i+1 {
				return nil, apperr.Invalidf("%s: variables must be consecutive {{1}}..{{%d}}; {{%d}} is missing", field, len(nums), i+1)
			}
		}
	}
	if field == "body_content" && len(all) > 0 {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, all[0]) || strings.HasSuffix(t, all[len(all)-1]) {
			return nil, apperr.Invalidf("%s cannot start or end with a variable", field)
		}
	}
	return vars, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// checkSamples requires one sample per body variable, in order (by
// number for {{1}}..{{n}}, by first appearance for named ones), then one
// more for a TEXT header's variable.
func (d *draft) checkSamples(raw []string) error {
	bodyVars, _ := variablesOf("body_content", d.body)
	want := len(bodyVars)
	hasHeaderVar := false
	if d.headerType == template.HeaderTypeTEXT && templateHasVariable(d.header) {
		hasHeaderVar = true
		want++
	}
	if len(raw) != want {
		what := fmt.Sprintf("%d body variable(s)", len(bodyVars))
		if hasHeaderVar {
			what += " and then the TEXT header's variable"
		}
		return apperr.Invalidf("sample_values must hold one sample for each of the %s: %d expected, %d given", what, want, len(raw))
	}
	d.samples = make([]string, len(raw))
	for i, s := range raw {
		v, err := valid.Text(fmt.Sprintf("sample_values[%d]", i), s, MaxSampleValue)
		if err != nil {
			return err
		}
		if v == "" {
			return apperr.Invalidf("sample_values[%d] is empty", i)
		}
		if strings.ContainsAny(v, "\n\r\t") {
			return apperr.Invalidf("sample_values[%d] must not contain new lines or tabs", i)
		}
		d.samples[i] = v
	}
	return nil
}
