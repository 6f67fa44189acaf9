package testkit

import (
	"context"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"
)

// RefusingToAddSearchAttributes is c whose operator service answers
// AddSearchAttributes with refusal and serves every other call, as Temporal
// Cloud or a server with an authorizer refuses it: a dev server itself
// always adds them.
func RefusingToAddSearchAttributes(c client.Client, refusal error) client.Client {
	return refusingToAdd{Client: c, refusal: refusal}
}

type refusingToAdd struct {
	client.Client
	refusal error
}

func (c refusingToAdd) OperatorService() operatorservice.OperatorServiceClient {
	return refusingOperator{OperatorServiceClient: c.Client.OperatorService(), refusal: c.refusal}
}

type refusingOperator struct {
	operatorservice.OperatorServiceClient
	refusal error
}

func (o refusingOperator) AddSearchAttributes(context.Context, *operatorservice.AddSearchAttributesRequest, ...grpc.CallOption) (*operatorservice.AddSearchAttributesResponse, error) {
	return nil, o.refusal
}
