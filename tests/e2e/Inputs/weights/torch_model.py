"""PyTorch's side of tests/e2e/weights-by-name.test. `write DIR`: a two-layer model's
state_dict (fc1 4->3, fc2 3->3 square, and a buffer dlm does not read) written as safetensors by
hand (the layout safetensors.torch.save_file writes: names, [out, in] weights), the input, and
the model's output. `check DIR OUT`: dlm's printed output equals PyTorch's, and dlm's checkpoint
(DIR/from_dlm.safetensors) opens with meaningful names and loads into the model.
"""
import json
import struct
import sys

import numpy as np
import torch

DTYPES = {"F32": np.float32, "I64": np.int64}


def write_safetensors(path, tensors):
    header, data, at = {"__metadata__": {"format": "pt"}}, b"", 0
    for name, t in tensors.items():
        raw = t.detach().numpy().astype(np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [at, at + len(raw)]}
        data += raw
        at += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def read_safetensors(path):
    blob = open(path, "rb").read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        begin, end = e["data_offsets"]
        out[name] = torch.tensor(np.frombuffer(blob[8 + n + begin:8 + n + end],
                                               dtype=DTYPES[e["dtype"]]).reshape(e["shape"]))
    return out


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3)
        self.fc2 = torch.nn.Linear(3, 3)
        self.register_buffer("steps", torch.zeros(2))

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def model():
    torch.manual_seed(0)
    return Net()


x = torch.tensor(np.sin(np.arange(8) * 0.7).astype(np.float32).reshape(2, 4))
if sys.argv[1] == "write":
    folder = sys.argv[2]
    write_safetensors(folder + "/torch.safetensors", model().state_dict())
    write_safetensors(folder + "/x.safetensors", {"x": x})
    sys.exit(0)

folder, printed = sys.argv[2], sys.argv[3]
net = model()
want = net(x).detach().numpy()
rows = [line.split() for line in open(printed) if line.startswith("y ")]
got = np.array([[float(v) for v in row[1:]] for row in rows], dtype=np.float32)
assert got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-6), (got, want)
print("dlm's output equals PyTorch's")
saved = read_safetensors(folder + "/from_dlm.safetensors")
print("dlm's checkpoint holds:", ", ".join(sorted(saved)))
fresh = Net()
missing, unexpected = fresh.load_state_dict(saved, strict=False)
print("missing:", missing, "unexpected:", unexpected)
for name, p in net.named_parameters():  # dlm saved 2 * each parameter
    assert torch.equal(dict(fresh.named_parameters())[name], 2 * p), name
print("PyTorch loads dlm's checkpoint by name")
