module github.com/tmemhq/tmem

go 1.26.8

require (
	github.com/adrg/frontmatter v0.2.0
	github.com/gofrs/flock v0.13.1
	github.com/rogpeppe/go-internal v1.14.1
	github.com/spf13/cobra v1.10.2
	github.com/yuin/goldmark v1.8.7
	gopkg.in/yaml.v2 v2.3.0
)

require (
	github.com/BurntSushi/toml v0.3.1 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/tiktoken-go/tokenizer v0.10.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
