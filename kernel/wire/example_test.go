package wire_test

import (
	"fmt"

	"github.com/commlab/commlab/kernel/wire"
)

// A kernel decodes a signed request and answers it with a reply whose
// parent_header is the request's header.
func ExampleReply() {
	signer, _ := wire.NewSigner("hmac-sha256", []byte("connection-file-key"))

	// What a client sends (a ROUTER socket prepends the client's identity).
	req := wire.Message{
		Identities: [][]byte{[]byte("client-1")},
		Header:     wire.NewHeader("session-1", "ada", "kernel_info_request"),
	}
	frames, _ := signer.Encode(req)
	fmt.Printf("%d frames, delimiter %q\n", len(frames), frames[1])

	got, err := signer.Decode(frames)
	if err != nil {
		fmt.Println(err)
		return
	}
	reply, _ := wire.Reply(got, "kernel_info_reply", map[string]string{"status": "ok"})
	fmt.Println(reply.Header.MsgType, string(reply.Identities[0]), string(reply.Content))
	fmt.Println(string(reply.ParentHeader) == string(frames[3]))

	// A frame changed in transit fails verification.
	frames[6] = []byte(`{"code":"rm -rf /"}`)
	_, err = signer.Decode(frames)
	fmt.Println(err)
	// Output:
	// 7 frames, delimiter "<IDS|MSG>"
	// kernel_info_reply client-1 {"status":"ok"}
	// true
	// wire: bad signature: signature does not match
}
