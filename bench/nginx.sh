# Sourced by the bench scripts that compare with nginx: start_nginx WORK ROOT PORT TYPES
# writes WORK/nginx/nginx.conf (worker_processes = cores, access_log off, sendfile, keep-alive,
# every temporary path inside WORK, the `types` block TYPES), serving ROOT on 127.0.0.1:PORT,
# starts nginx in the foreground in the background, and sets nginx_pid.
start_nginx() {
  local work=$1 root=$2 port=$3 types=$4
  local bin
  bin=$(command -v nginx || echo /usr/sbin/nginx)
  mkdir -p "$work/nginx"
  cat >"$work/nginx/nginx.conf" <<CONF
worker_processes $(nproc);
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  types { $types }
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server { listen 127.0.0.1:$port; root $root; }
}
CONF
  "$bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx/start.err" &
  nginx_pid=$!
}
