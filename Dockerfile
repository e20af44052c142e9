# An image with idemcheck, for Compose and GitLab users:
#   docker build -t idemcheck .
#   docker run --rm -v "$PWD:/work" -w /work idemcheck run --config idemcheck.yaml
# idemcheck's own servers (fakepsp, Toxiproxy) listen on loopback unless a
# config opts in to a remote address; run the image in the same network
# namespace as the service (docker run --network container:<svc>, or a
# Compose service with network_mode: "service:<svc>").
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/idemcheck ./cmd/idemcheck

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/idemcheck /usr/local/bin/idemcheck
ENTRYPOINT ["idemcheck"]
CMD ["help"]
