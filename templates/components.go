package templates

import (
	"strings"

	"switchboard/apperr"
	"switchboard/ent"
	"switchboard/ent/template"
	"switchboard/provider"
)

// Definition builds the platform's template definition from t's flat
// fields, as the Cloud API documents the message_templates create call:
// HEADER with its format (TEXT with example.header_text, or a media
// format with example.header_handle: the upload-media handle), BODY with
// example.body_text (or body_text_named_params and parameter_format
// NAMED), FOOTER, BUTTONS (URL buttons with a variable carry their
// sample URL: see urlButtonExample); AUTHENTICATION templates get BODY with
// add_security_recommendation, FOOTER with code_expiration_minutes and
// the OTP button of type COPY_CODE. Errors: invalid (what the platform
// would refuse: a media header without its sample handle, samples that
// do not match the variables).
func Definition(t *ent.Template) (provider.TemplateDefinition, error) {
	def := provider.TemplateDefinition{Name: t.Name, Language: t.Language, Category: string(t.Category)}
	comps, named, err := components(t)
	if err != nil {
		return def, err
	}
	if named {
		def.ParameterFormat = "NAMED"
	}
	def.Components = comps
	return def, nil
}

func components(t *ent.Template) ([]provider.TemplateComponent, bool, error) {
	if _, err := validate(inputOf(t)); err != nil {
		return nil, false, err
	}
	if t.Category == template.CategoryAUTHENTICATION {
		return authComponents(t), false, nil
	}
	bodyVars := VariableNames(t.BodyContent)
	named := len(bodyVars) > 0 && !isDigits(bodyVars[0])
	samples := t.SampleValues
	var out []provider.TemplateComponent
	switch t.HeaderType {
	case template.HeaderTypeTEXT:
		h := provider.TemplateComponent{Type: "HEADER", Format: "TEXT", Text: t.HeaderContent}
		if hv := VariableNames(t.HeaderContent); len(hv) == 1 {
			sample := samples[len(samples)-1]
			if isDigits(hv[0]) {
				h.Example = &provider.TemplateExample{HeaderText: []string{sample}}
			} else {
				named = true
				h.Example = &provider.TemplateExample{HeaderTextNamedParams: []provider.NamedParamExample{{ParamName: hv[0], Example: sample}}}
			}
		}
		out = append(out, h)
	case template.HeaderTypeIMAGE, template.HeaderTypeVIDEO, template.HeaderTypeDOCUMENT:
		if t.HeaderContent == "" {
			return nil, false, apperr.Invalidf("a %s header needs its sample: upload it with /api/templates/upload-media and set header_content to the handle", t.HeaderType)
		}
		out = append(out, provider.TemplateComponent{Type: "HEADER", Format: string(t.HeaderType),
			Example: &provider.TemplateExample{HeaderHandle: []string{t.HeaderContent}}})
	}
	body := provider.TemplateComponent{Type: "BODY", Text: t.BodyContent}
	if len(bodyVars) > 0 {
		if named {
			ex := make([]provider.NamedParamExample, len(bodyVars))
			for i, v := range bodyVars {
				ex[i] = provider.NamedParamExample{ParamName: v, Example: samples[i]}
			}
			body.Example = &provider.TemplateExample{BodyTextNamedParams: ex}
		} else {
			body.Example = &provider.TemplateExample{BodyText: [][]string{append([]string(nil), samples[:len(bodyVars)]...)}}
		}
	}
	out = append(out, body)
	if t.FooterContent != "" {
		out = append(out, provider.TemplateComponent{Type: "FOOTER", Text: t.FooterContent})
	}
	if len(t.Buttons) > 0 {
		bs := make([]provider.TemplateButtonDef, 0, len(t.Buttons))
		for _, b := range t.Buttons {
			def := provider.TemplateButtonDef{Type: str(b, "type"), Text: str(b, "text")}
			switch def.Type {
			case ButtonURL:
				def.URL = str(b, "url")
				if HasVariable(def.URL) {
					def.Example = []string{urlButtonExample(def.URL, str(b, "example"))}
				}
			case ButtonPhoneNumber:
				def.PhoneNumber = str(b, "phone_number")
			case ButtonCopyCode:
				def.Example = str(b, "example")
			}
			bs = append(bs, def)
		}
		out = append(out, provider.TemplateComponent{Type: "BUTTONS", Buttons: bs})
	}
	return out, named, nil
}

// URLButtonSample is what fills a dynamic URL button's {{1}} in the
// sample URL the platform requires when the button has no example: the
// interface's button object has none (type, text, url).
const URLButtonSample = "sample"

// urlButtonExample is the sample URL the platform requires of a URL
// button with a variable: the button's optional example (an extension of
// the interface's button object), a whole URL or the value of {{1}};
// without one, the URL with {{1}} filled by URLButtonSample.
func urlButtonExample(url, example string) string {
	switch {
	case example == "":
		return strings.Replace(url, "{{1}}", URLButtonSample, 1)
	case strings.HasPrefix(example, "http://") || strings.HasPrefix(example, "https://"):
		return example
	}
	return strings.TrimSuffix(url, "{{1}}") + example
}

func authComponents(t *ent.Template) []provider.TemplateComponent {
	rec := t.AddSecurityRecommendation
	out := []provider.TemplateComponent{{Type: "BODY", AddSecurityRecommendation: &rec}}
	if t.CodeExpirationMinutes != nil {
		m := *t.CodeExpirationMinutes
		out = append(out, provider.TemplateComponent{Type: "FOOTER", CodeExpirationMinutes: &m})
	}
	text := defaultOTPButtonText
	if len(t.Buttons) > 0 && str(t.Buttons[0], "text") != "" {
		text = str(t.Buttons[0], "text")
	}
	out = append(out, provider.TemplateComponent{Type: "BUTTONS", Buttons: []provider.TemplateButtonDef{
		{Type: ButtonOTP, OTPType: "COPY_CODE", Text: text},
	}})
	return out
}

// inputOf is the Input that t was stored from, to check a stored template
// again before it is submitted.
func inputOf(t *ent.Template) Input {
	ht, dn := string(t.HeaderType), t.DisplayName
	return Input{
		ChatAccount: t.ChatAccount, Name: t.Name, DisplayName: &dn, Language: t.Language, Category: string(t.Category),
		HeaderType: &ht, HeaderContent: t.HeaderContent, BodyContent: t.BodyContent, FooterContent: t.FooterContent,
		Buttons: t.Buttons, SampleValues: t.SampleValues, AddSecurityRecommendation: t.AddSecurityRecommendation,
		CodeExpirationMinutes: t.CodeExpirationMinutes,
	}
}
