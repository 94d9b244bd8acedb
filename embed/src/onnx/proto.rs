//! The few ONNX protobuf messages a BERT graph needs, written by hand: a model is a graph of
//! nodes, weights (initializers) and typed inputs and outputs. Field numbers are `onnx.proto3`'s.
//! Only writing is needed: the runtime reads the bytes.

/// Element types (`TensorProto.DataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    Float = 1,
    Int8 = 3,
    Int32 = 6,
    Int64 = 7,
}

/// A protobuf message being written.
#[derive(Default)]
pub struct Message(Vec<u8>);

const VARINT: u64 = 0;
const LENGTH_DELIMITED: u64 = 2;
const FIXED32: u64 = 5;

impl Message {
    fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.0.push((value as u8 & 0x7f) | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    fn key(&mut self, field: u64, wire: u64) {
        self.varint(field << 3 | wire);
    }

    pub fn int(&mut self, field: u64, value: i64) -> &mut Self {
        self.key(field, VARINT);
        self.varint(value as u64);
        self
    }

    pub fn float(&mut self, field: u64, value: f32) -> &mut Self {
        self.key(field, FIXED32);
        self.0.extend_from_slice(&value.to_le_bytes());
        self
    }

    pub fn bytes(&mut self, field: u64, value: &[u8]) -> &mut Self {
        self.key(field, LENGTH_DELIMITED);
        self.varint(value.len() as u64);
        self.0.extend_from_slice(value);
        self
    }

    pub fn string(&mut self, field: u64, value: &str) -> &mut Self {
        self.bytes(field, value.as_bytes())
    }

    pub fn message(&mut self, field: u64, message: &Message) -> &mut Self {
        self.bytes(field, &message.0)
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

/// `OperatorSetIdProto`: a domain and its version.
pub fn opset(domain: &str, version: i64) -> Message {
    let mut message = Message::default();
    message.string(1, domain).int(2, version);
    message
}

/// `TensorProto` with its bytes as `raw_data` (little-endian, as the format wants).
pub fn tensor(name: &str, element: Element, dims: &[usize], raw: &[u8]) -> Message {
    let mut message = Message::default();
    for &dim in dims {
        message.int(1, dim as i64);
    }
    message.int(2, element as i64).string(8, name).bytes(9, raw);
    message
}

/// `ValueInfoProto` of a tensor whose dimensions are named (symbolic) or fixed.
pub fn value_info(name: &str, element: Element, dims: &[Dim<'_>]) -> Message {
    let mut shape = Message::default();
    for dim in dims {
        let mut dimension = Message::default();
        match dim {
            Dim::Named(symbol) => dimension.string(2, symbol),
            Dim::Fixed(size) => dimension.int(1, *size as i64),
        };
        shape.message(1, &dimension);
    }
    let mut tensor_type = Message::default();
    tensor_type.int(1, element as i64).message(2, &shape);
    let mut type_proto = Message::default();
    type_proto.message(1, &tensor_type);
    let mut message = Message::default();
    message.string(1, name).message(2, &type_proto);
    message
}

/// One dimension of a graph input or output.
pub enum Dim<'a> {
    Named(&'a str),
    Fixed(usize),
}

/// A node attribute (`AttributeProto`).
pub enum Attribute<'a> {
    Int(&'a str, i64),
    Float(&'a str, f32),
    Ints(&'a str, &'a [i64]),
}

/// `NodeProto`: an operator of `domain` ("" is ONNX's own) from `inputs` to `outputs`. An empty
/// input name is an omitted optional input.
pub fn node(op_type: &str, domain: &str, name: &str, inputs: &[&str], outputs: &[&str], attributes: &[Attribute<'_>]) -> Message {
    let mut message = Message::default();
    for input in inputs {
        message.string(1, input);
    }
    for output in outputs {
        message.string(2, output);
    }
    message.string(3, name).string(4, op_type);
    for attribute in attributes {
        let mut proto = Message::default();
        match attribute {
            Attribute::Int(key, value) => proto.string(1, key).int(3, *value).int(20, 2),
            Attribute::Float(key, value) => proto.string(1, key).float(2, *value).int(20, 1),
            Attribute::Ints(key, values) => {
                proto.string(1, key);
                for value in *values {
                    proto.int(8, *value);
                }
                proto.int(20, 7)
            }
        };
        message.message(5, &proto);
    }
    message.string(7, domain);
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_keys_are_protobufs() {
        let mut message = Message::default();
        message.int(1, 300).string(2, "ab").float(3, 1.0);
        assert_eq!(message.into_bytes(), vec![0x08, 0xac, 0x02, 0x12, 2, b'a', b'b', 0x1d, 0, 0, 0x80, 0x3f]);
        let mut negative = Message::default();
        negative.int(1, -1);
        assert_eq!(negative.into_bytes().len(), 1 + 10, "a negative int64 is ten bytes, as protobuf wants");
    }
}
