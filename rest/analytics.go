package rest

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"switchboard/analytics"
	"switchboard/apperr"
)

// Analytics (package analytics): the dashboard, the agents' analytics and
// the platform's analytics of the organization's accounts. The spec's
// message and chatbot analytics are placeholders answering 501.

func analyticsPeriod(from, to string) (analytics.Period, error) {
	return analytics.ParsePeriod(from, to, time.Now())
}

func (a *API) analyticsDashboard(c *gin.Context) (int, any, error) {
	q := queryOf[periodQuery](c)
	p, err := analyticsPeriod(q.From, q.To)
	if err != nil {
		return 0, nil, err
	}
	d, err := a.R.Analytics.Dashboard(ctx(c), p)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, d, nil
}

func (a *API) agentAnalytics(c *gin.Context) (int, any, error) {
	q := queryOf[agentsQuery](c)
	p, err := analyticsPeriod(q.From, q.To)
	if err != nil {
		return 0, nil, err
	}
	g, err := analytics.ParseGroupBy(q.GroupBy)
	if err != nil {
		return 0, nil, err
	}
	in := analytics.AgentsInput{Period: p, GroupBy: g, AgentID: q.AgentID}
	r, err := a.R.Analytics.Agents(ctx(c), in)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, r, nil
}

func (a *API) agentAnalyticsDetail(c *gin.Context) (int, any, error) {
	id, err := pathUUID(c, "id")
	if err != nil {
		return 0, nil, err
	}
	q := queryOf[agentDetailQuery](c)
	p, err := analyticsPeriod(q.From, q.To)
	if err != nil {
		return 0, nil, err
	}
	g, err := analytics.ParseGroupBy(q.GroupBy)
	if err != nil {
		return 0, nil, err
	}
	d, err := a.R.Analytics.Agent(ctx(c), id, p, g)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, d, nil
}

func (a *API) agentComparison(c *gin.Context) (int, any, error) {
	q := queryOf[periodQuery](c)
	p, err := analyticsPeriod(q.From, q.To)
	if err != nil {
		return 0, nil, err
	}
	out, err := a.R.Analytics.Comparison(ctx(c), p)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, agentComparisonData{Agents: out}, nil
}

func (a *API) platformAnalytics(c *gin.Context) (int, any, error) {
	in := queryOf[platformAnalyticsQuery](c)
	q, err := analytics.ParsePlatform(analytics.PlatformInput{
		Type: in.AnalyticsType, Start: in.Start, End: in.End,
		AccountID: in.AccountID, Granularity: in.Granularity, TemplateIDs: in.TemplateIDs,
	}, time.Now().UTC())
	if err != nil {
		return 0, nil, err
	}
	r, err := a.R.Analytics.Platform(ctx(c), q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, r, nil
}

func (a *API) platformAnalyticsAccounts(c *gin.Context) (int, any, error) {
	out, err := a.R.Analytics.PlatformAccounts(ctx(c))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, platformAccountsData{Accounts: out}, nil
}

func (a *API) refreshPlatformAnalytics(c *gin.Context) (int, any, error) {
	if err := a.R.Analytics.RefreshPlatform(ctx(c)); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, messageData{Message: "Provider analytics cache cleared"}, nil
}

// notImplemented answers the spec's placeholders.
func notImplemented(*gin.Context) (int, any, error) {
	return 0, nil, apperr.New(apperr.NotImplemented, "Not implemented yet")
}

func (a *API) analyticsRoutes() []Route {
	return []Route{
		{Method: get, Path: "/api/analytics/dashboard", Op: "analyticsDashboard", Query: periodQuery{}, Out: analytics.Dashboard{}, Handle: a.analyticsDashboard},
		{Method: get, Path: "/api/analytics/agents", Op: "agentAnalytics", Query: agentsQuery{}, Out: analytics.AgentReport{}, Handle: a.agentAnalytics},
		{Method: get, Path: "/api/analytics/agents/comparison", Op: "agentComparison", Query: periodQuery{}, Out: agentComparisonData{}, Handle: a.agentComparison},
		{Method: get, Path: "/api/analytics/agents/:id", Op: "agentAnalyticsDetail", Query: agentDetailQuery{}, Out: analytics.AgentDetail{}, Handle: a.agentAnalyticsDetail},
		{Method: get, Path: "/api/analytics/provider", Op: "providerAnalytics", Query: platformAnalyticsQuery{}, Out: analytics.PlatformReport{}, Handle: a.platformAnalytics},
		{Method: get, Path: "/api/analytics/provider/accounts", Op: "providerAnalyticsAccounts", Out: platformAccountsData{}, Handle: a.platformAnalyticsAccounts},
		{Method: post, Path: "/api/analytics/provider/refresh", Op: "refreshProviderAnalytics", Out: messageData{}, Handle: a.refreshPlatformAnalytics},
		{Method: get, Path: "/api/analytics/messages", Op: "messageAnalytics", Errors: []int{http.StatusNotImplemented}, Summary: "Not implemented (501)", Out: noData{}, Handle: notImplemented},
		{Method: get, Path: "/api/analytics/chatbot", Op: "chatbotAnalytics", Errors: []int{http.StatusNotImplemented}, Summary: "Not implemented (501)", Out: noData{}, Handle: notImplemented},
	}
}
