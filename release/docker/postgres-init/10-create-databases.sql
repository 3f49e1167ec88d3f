-- Run once by the database container when it creates its cluster (an empty data/postgres):
-- the three databases the service derives from postgres://service@db/service. The service
-- creates their tables itself (migrations) when it starts.
CREATE DATABASE service_control_plane;
CREATE DATABASE service_shared;
CREATE DATABASE service_tenant;
