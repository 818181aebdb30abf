package notebook

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed nbformat.v4.5.schema.json
var schemaJSON []byte

// ErrInvalid reports a notebook the nbformat schema rejects.
var ErrInvalid = errors.New("notebook: invalid against nbformat 4.5 schema")

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func compiledSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			schemaErr = fmt.Errorf("notebook: schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		const url = "https://jupyter.org/schema/nbformat.v4.5.schema.json"
		if err := c.AddResource(url, doc); err != nil {
			schemaErr = fmt.Errorf("notebook: schema: %w", err)
			return
		}
		schema, schemaErr = c.Compile(url)
		if schemaErr != nil {
			schemaErr = fmt.Errorf("notebook: schema: %w", schemaErr)
		}
	})
	return schema, schemaErr
}

// Validate checks a notebook file's bytes against the nbformat 4.5 schema.
func Validate(data []byte) error {
	s, err := compiledSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}
