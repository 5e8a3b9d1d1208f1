package audit

//go:generate go run ./internal/stdlibgen stdlib_names.go
