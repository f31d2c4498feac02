-- reverse: create index "dashboardwidget_organization_id_owner_id" to table: "dashboard_widgets"
DROP INDEX "dashboardwidget_organization_id_owner_id";
-- reverse: create "dashboard_widgets" table
DROP TABLE "dashboard_widgets";
